package store_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// testInbox counts its closes and, like a backend's inbox, leaves the set
// when it closes.
type testInbox struct {
	set    *store.InboxSet[*testInbox]
	closes atomic.Int32
	err    error
}

func (in *testInbox) Close() error {
	in.closes.Add(1)
	in.set.Remove(in)
	return in.err
}

func TestInboxSetClosesOpenInboxes(t *testing.T) {
	var set store.InboxSet[*testInbox]
	require.NoError(t, set.Err(), "the zero value is open")
	boom := errors.New("boom")
	a, b, c := &testInbox{set: &set}, &testInbox{set: &set, err: boom}, &testInbox{set: &set}
	for _, in := range []*testInbox{a, b, c} {
		require.NoError(t, set.Add(in))
	}
	require.NoError(t, c.Close(), "an inbox closed on its own leaves the set")

	first, err := set.Close()
	assert.True(t, first)
	assert.ErrorIs(t, err, boom, "the inboxes' errors are returned")
	assert.Equal(t, int32(1), a.closes.Load())
	assert.Equal(t, int32(1), b.closes.Load())
	assert.Equal(t, int32(1), c.closes.Load(), "not closed again")
	assert.ErrorIs(t, set.Err(), store.ErrClosed)

	first, err = set.Close()
	assert.False(t, first, "a second Close does nothing")
	assert.NoError(t, err)
	assert.Equal(t, int32(1), a.closes.Load())
}

func TestInboxSetAddAfterClose(t *testing.T) {
	var set store.InboxSet[*testInbox]
	_, err := set.Close()
	require.NoError(t, err)
	late := &testInbox{set: &set}
	assert.ErrorIs(t, set.Add(late), store.ErrClosed)
	assert.Equal(t, int32(1), late.closes.Load(), "an inbox opened while the backend closed is closed")
}

func TestTakeTurn(t *testing.T) {
	sem, done := make(chan struct{}, 1), make(chan struct{})
	require.NoError(t, store.TakeTurn(t.Context(), sem, done), "a free turn is taken at once")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, store.TakeTurn(ctx, sem, done), context.Canceled, "the turn is held; ctx ended")

	got := make(chan error, 1)
	go func() { got <- store.TakeTurn(t.Context(), sem, done) }()
	<-sem // the holder leaves
	select {
	case err := <-got:
		assert.NoError(t, err, "the waiting call gets the turn")
	case <-time.After(10 * time.Second):
		t.Fatal("TakeTurn did not return after the turn was given back")
	}

	go func() { got <- store.TakeTurn(t.Context(), sem, done) }()
	close(done)
	select {
	case err := <-got:
		assert.ErrorIs(t, err, store.ErrClosed, "closing ends the wait")
	case <-time.After(10 * time.Second):
		t.Fatal("TakeTurn did not return after done was closed")
	}
	assert.Len(t, sem, 1, "the closed call did not take a turn")
}

func TestStillOpen(t *testing.T) {
	done := make(chan struct{})
	assert.NoError(t, store.StillOpen(t.Context(), done))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, store.StillOpen(ctx, done), context.Canceled)
	close(done)
	assert.ErrorIs(t, store.StillOpen(ctx, done), store.ErrClosed, "closed wins over an ended ctx")
}

func TestNotify(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	store.Notify(nil, clock, store.Event{Kind: store.EventSent}) // no observer: nothing happens

	var got []store.Event
	obs := func(ev store.Event) { got = append(got, ev) }
	store.Notify(obs, clock, store.Event{Kind: store.EventSent, MessageID: "m1"})
	earlier := now.Add(-time.Hour)
	store.Notify(obs, clock, store.Event{Kind: store.EventClaimed, Time: earlier})
	require.Len(t, got, 2)
	assert.Equal(t, now, got[0].Time, "a zero time is stamped")
	assert.Equal(t, "m1", got[0].MessageID)
	assert.Equal(t, earlier, got[1].Time, "a time already set is kept")
}
