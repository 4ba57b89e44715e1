package storetest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// runRecords checks the backend's driver.Records, on which the facade
// keeps approvals and agents' state: what one process saves another
// loads, a save replaces, of many creators exactly one wins and everyone
// reads its record, a delete removes (twice is no error, and the record
// can be created again), the shelves are apart, listing gives a shelf's
// keys sorted, and what cannot name a record is refused.
func (s *suite) runRecords(t *testing.T) {
	w := s.world(t)
	one, other := w.driver(t, nil), w.driver(t, nil)
	ctx := testkit.Ctx(t)
	r := driver.Record{Shelf: "bob", Key: "notes"}

	_, err := other.LoadRecord(ctx, r)
	require.ErrorIs(t, err, driver.ErrNoRecord, "no record yet")
	require.NoError(t, one.SaveRecord(ctx, r, []byte(`[1]`)))
	require.NoError(t, one.SaveRecord(ctx, r, []byte(`[1,2]`)))
	got, err := other.LoadRecord(ctx, r)
	require.NoError(t, err)
	assert.Equal(t, `[1,2]`, string(got), "the last save, read by another process")

	// Many creators at once: exactly one wins, and all read its record.
	c := driver.Record{Shelf: driver.ShelfDecisions, Key: "d-1"}
	errs := make([]error, 8)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			be := one
			if i%2 == 1 {
				be = other
			}
			errs[i] = be.CreateRecord(ctx, c, fmt.Appendf(nil, `{"by":%d}`, i))
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			assert.Equal(t, -1, winner, "a second creator succeeded: %v", errs)
			winner = i
		} else {
			assert.ErrorIs(t, err, driver.ErrRecordExists)
		}
	}
	require.NotEqual(t, -1, winner, "nobody created the record: %v", errs)
	for _, be := range []driver.Backend{one, other} {
		got, err := be.LoadRecord(ctx, c)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf(`{"by":%d}`, winner), string(got), "the winner's record")
	}

	require.NoError(t, one.DeleteRecord(ctx, c))
	require.NoError(t, other.DeleteRecord(ctx, c), "deleting again is no error")
	_, err = other.LoadRecord(ctx, c)
	assert.ErrorIs(t, err, driver.ErrNoRecord, "deleted")
	require.NoError(t, other.CreateRecord(ctx, c, []byte(`{}`)), "created again once deleted")

	// Shelves are apart, and listing gives a shelf's keys, sorted.
	for _, rec := range []driver.Record{{Shelf: driver.ShelfApprovals, Key: "b-2"}, {Shelf: driver.ShelfApprovals, Key: "a-1"},
		{Shelf: driver.ShelfApprovals, Key: "d-1"}, {Shelf: "carol", Key: "notes"}} {
		require.NoError(t, one.CreateRecord(ctx, rec, []byte(`{}`)), "%s", rec)
	}
	for shelf, want := range map[string][]string{driver.ShelfApprovals: {"a-1", "b-2", "d-1"}, driver.ShelfDecisions: {"d-1"},
		"bob": {"notes"}, "carol": {"notes"}, "dave": {}} {
		keys, err := other.ListRecords(ctx, shelf)
		require.NoError(t, err, "shelf %s", shelf)
		assert.Equal(t, want, append([]string{}, keys...), "keys of shelf %s", shelf)
	}
	got, err = other.LoadRecord(ctx, driver.Record{Shelf: "carol", Key: "notes"})
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(got), "carol's notes are not bob's")

	for _, bad := range []driver.Record{{Shelf: "bob", Key: ""}, {Shelf: "bob", Key: "../x"}, {Shelf: "bob", Key: "a/b"},
		{Shelf: "bob", Key: "a.b"}, {Shelf: "bob", Key: "-x"}, {Shelf: "", Key: "k"}, {Shelf: "../x", Key: "k"},
		{Shelf: "_Bad", Key: "k"}, {Shelf: "_", Key: "k"}} {
		assert.Error(t, one.SaveRecord(ctx, bad, []byte("x")), "save %q/%q", bad.Shelf, bad.Key)
		assert.Error(t, one.CreateRecord(ctx, bad, []byte("x")), "create %q/%q", bad.Shelf, bad.Key)
		_, err := one.LoadRecord(ctx, bad)
		assert.Error(t, err, "load %q/%q", bad.Shelf, bad.Key)
		assert.NotErrorIs(t, err, driver.ErrNoRecord, "load %q/%q", bad.Shelf, bad.Key)
		assert.Error(t, one.DeleteRecord(ctx, bad), "delete %q/%q", bad.Shelf, bad.Key)
	}
	_, err = one.ListRecords(ctx, "../x")
	assert.Error(t, err, "list a shelf that cannot be one")

	require.NoError(t, one.Close())
	_, err = one.LoadRecord(ctx, r)
	assert.ErrorIs(t, err, store.ErrClosed)
	assert.ErrorIs(t, one.SaveRecord(ctx, r, []byte(`[]`)), store.ErrClosed)
	assert.ErrorIs(t, one.CreateRecord(ctx, driver.Record{Shelf: "bob", Key: "new"}, []byte(`[]`)), store.ErrClosed)
}
