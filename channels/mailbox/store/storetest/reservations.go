package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// runReservations checks records changed in place (driver.RecordUpdater)
// and the file reservations the facade builds on them.
func (s *suite) runReservations(t *testing.T) {
	t.Run("UpdateRecord", testkit.Parallel(s.testUpdateRecord))
	t.Run("OneWins", testkit.Parallel(s.testReservationRace))
	t.Run("Rules", testkit.Parallel(s.testReservationRules))
}

// testUpdateRecord: many writers in two processes each add one to a
// counter: none of their updates is lost; a failing update writes
// nothing; nil deletes.
func (s *suite) testUpdateRecord(t *testing.T) {
	w := s.world(t)
	one, other := w.driver(t, nil), w.driver(t, nil)
	Need(t, s.feat.RecordUpdate(), store.New(one, nil))
	ctx := testkit.Ctx(t)
	r := driver.Record{Shelf: "_counters", Key: "hits"}
	add := func(be driver.Backend) error {
		_, err := be.(driver.RecordUpdater).UpdateRecord(ctx, r, func(old []byte) ([]byte, error) {
			n := 0
			if old != nil {
				var err error
				if n, err = strconv.Atoi(string(old)); err != nil {
					return nil, err
				}
			}
			return []byte(strconv.Itoa(n + 1)), nil
		})
		return err
	}
	const writers = 16
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			be := one
			if i%2 == 1 {
				be = other
			}
			errs[i] = add(be)
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	got, err := other.LoadRecord(ctx, r)
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(writers), string(got), "no update lost")

	_, err = one.(driver.RecordUpdater).UpdateRecord(ctx, r, func([]byte) ([]byte, error) { return nil, fmt.Errorf("no") })
	require.EqualError(t, err, "no")
	got, err = other.LoadRecord(ctx, r)
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(writers), string(got), "a failed update wrote nothing")

	_, err = one.(driver.RecordUpdater).UpdateRecord(ctx, r, func([]byte) ([]byte, error) { return nil, nil })
	require.NoError(t, err)
	_, err = other.LoadRecord(ctx, r)
	require.ErrorIs(t, err, driver.ErrNoRecord, "nil deletes the record")
}

// testReservationRace: two agents in two processes reserve the same path
// at once: one wins; the other is told who holds it and until when, sees
// the holder in the list, and gets the path once the lease expired.
func (s *suite) testReservationRace(t *testing.T) {
	w := s.world(t)
	one, other := w.open(t, nil), w.open(t, nil)
	Need(t, s.feat.RecordUpdate(), one)
	ctx := testkit.Ctx(t)
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	agents := []string{"alice", "bob"}
	stores := []*store.Store{one, other}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range agents {
		wg.Go(func() {
			r, err := stores[i].Reservations()
			if err == nil {
				_, err = r.Reserve(ctx, store.ReserveRequest{Agent: agents[i], Patterns: []string{"src/main.go"},
					TTL: 10 * time.Minute, Reason: "refactoring", Now: now})
			}
			errs[i] = err
		})
	}
	wg.Wait()
	winner, loser := 0, 1
	if errs[0] != nil {
		winner, loser = 1, 0
	}
	require.NoError(t, errs[winner], "one wins")
	var held *store.ReservedError
	require.ErrorAs(t, errs[loser], &held, "the other is refused")
	require.ErrorIs(t, errs[loser], store.ErrReserved)
	assert.Equal(t, agents[winner], held.Held[0].Agent, "and told who holds it")
	assert.Contains(t, errs[loser].Error(), "src/main.go is reserved by "+agents[winner]+" (exclusive, src/main.go, until 2026-05-01T10:10:00Z: refactoring)")

	r, err := stores[loser].Reservations()
	require.NoError(t, err)
	list, err := r.List(ctx, "src/main.go", now.Add(9*time.Minute))
	require.NoError(t, err)
	require.Len(t, list, 1, "the holder is listed until it expires")
	assert.Equal(t, agents[winner], list[0].Agent)
	list, err = r.List(ctx, "", now.Add(10*time.Minute))
	require.NoError(t, err)
	assert.Empty(t, list, "expired")
	got, err := r.Reserve(ctx, store.ReserveRequest{Agent: agents[loser], Patterns: []string{"src/main.go"}, Now: now.Add(10 * time.Minute)})
	require.NoError(t, err, "the lease expired: the other agent gets it")
	assert.Equal(t, agents[loser], got[0].Agent)
}

// testReservationRules: globs overlap paths, shared reservations go
// together, an agent renews its own, release ends them, and a record that
// is not a table is reported, not overwritten.
func (s *suite) testReservationRules(t *testing.T) {
	w := s.world(t)
	be := w.open(t, nil)
	Need(t, s.feat.RecordUpdate(), be)
	ctx := testkit.Ctx(t)
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	r, err := be.Reservations()
	require.NoError(t, err)
	reserve := func(agent string, shared bool, patterns ...string) error {
		_, err := r.Reserve(ctx, store.ReserveRequest{Agent: agent, Patterns: patterns, Shared: shared, Now: now})
		return err
	}
	require.NoError(t, reserve("alice", false, "docs/**"))
	require.ErrorIs(t, reserve("bob", false, "docs/api/v2.md"), store.ErrReserved, "inside alice's glob")
	require.ErrorIs(t, reserve("bob", true, "docs/*.md"), store.ErrReserved, "a shared one is refused beside an exclusive one")
	require.NoError(t, reserve("bob", false, "src/**", "README.md"))
	require.ErrorIs(t, reserve("carol", false, "README.md", "CHANGES.md"), store.ErrReserved)
	list, err := r.List(ctx, "CHANGES.md", now)
	require.NoError(t, err)
	assert.Empty(t, list, "all or nothing: carol got no part of it")

	require.NoError(t, reserve("carol", true, "data/*.csv"))
	require.NoError(t, reserve("dave", true, "data/q3.csv"), "shared ones go together")
	require.ErrorIs(t, reserve("erin", false, "data/q3.csv"), store.ErrReserved)

	require.NoError(t, reserve("alice", false, "docs/**"), "an agent renews its own")
	list, err = r.List(ctx, "", now)
	require.NoError(t, err)
	assert.Len(t, list, 5)

	ended, err := r.Release(ctx, "bob", []string{"README.md"}, now)
	require.NoError(t, err)
	require.Len(t, ended, 1)
	require.NoError(t, reserve("carol", false, "README.md"))
	ended, err = r.Release(ctx, "bob", nil, now)
	require.NoError(t, err)
	assert.Len(t, ended, 1, "the rest of bob's")

	_, err = r.Reserve(ctx, store.ReserveRequest{Agent: "bob", Patterns: []string{"."}, Now: now})
	require.ErrorContains(t, err, "names the whole workspace")
	_, err = r.Reserve(ctx, store.ReserveRequest{Agent: "bob", Patterns: []string{"x"}, TTL: 30 * 24 * time.Hour, Now: now})
	require.ErrorContains(t, err, "a reservation lasts from 1 second to")

	drv := w.driver(t, nil)
	table, err := drv.LoadRecord(ctx, driver.Record{Shelf: "_reservations", Key: "table"})
	require.NoError(t, err)
	assert.True(t, json.Valid(table), "one JSON record")
	require.NoError(t, drv.SaveRecord(context.WithoutCancel(ctx), driver.Record{Shelf: "_reservations", Key: "table"}, []byte("[")))
	require.ErrorIs(t, reserve("alice", false, "x"), store.ErrCorruptState)
}
