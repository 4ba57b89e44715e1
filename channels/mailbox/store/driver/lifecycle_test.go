package driver_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testInbox counts its closes and, like a backend's inbox, leaves the set
// when it closes.
type testInbox struct {
	set    *driver.InboxSet[*testInbox]
	closes atomic.Int32
	err    error
}

func (in *testInbox) Close() error {
	in.closes.Add(1)
	in.set.Remove(in)
	return in.err
}

func TestInboxSetClosesOpenInboxes(t *testing.T) {
	var set driver.InboxSet[*testInbox]
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
	assert.ErrorIs(t, set.Err(), driver.ErrClosed)

	first, err = set.Close()
	assert.False(t, first, "a second Close does nothing")
	assert.NoError(t, err)
	assert.Equal(t, int32(1), a.closes.Load())
}

func TestInboxSetAddAfterClose(t *testing.T) {
	var set driver.InboxSet[*testInbox]
	_, err := set.Close()
	require.NoError(t, err)
	late := &testInbox{set: &set}
	assert.ErrorIs(t, set.Add(late), driver.ErrClosed)
	assert.Equal(t, int32(1), late.closes.Load(), "an inbox opened while the backend closed is closed")
}

func TestTakeTurn(t *testing.T) {
	sem, done := make(chan struct{}, 1), make(chan struct{})
	require.NoError(t, driver.TakeTurn(t.Context(), sem, done), "a free turn is taken at once")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, driver.TakeTurn(ctx, sem, done), context.Canceled, "the turn is held; ctx ended")

	got := make(chan error, 1)
	go func() { got <- driver.TakeTurn(t.Context(), sem, done) }()
	<-sem // the holder leaves
	select {
	case err := <-got:
		assert.NoError(t, err, "the waiting call gets the turn")
	case <-time.After(testkit.WaitLimit):
		t.Fatal("TakeTurn did not return after the turn was given back")
	}

	go func() { got <- driver.TakeTurn(t.Context(), sem, done) }()
	close(done)
	select {
	case err := <-got:
		assert.ErrorIs(t, err, driver.ErrClosed, "closing ends the wait")
	case <-time.After(testkit.WaitLimit):
		t.Fatal("TakeTurn did not return after done was closed")
	}
	assert.Len(t, sem, 1, "the closed call did not take a turn")
}

func TestStillOpen(t *testing.T) {
	done := make(chan struct{})
	assert.NoError(t, driver.StillOpen(t.Context(), done))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, driver.StillOpen(ctx, done), context.Canceled)
	close(done)
	assert.ErrorIs(t, driver.StillOpen(ctx, done), driver.ErrClosed, "closed wins over an ended ctx")
}

func TestNotify(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	driver.Notify(nil, clock, driver.Event{Kind: driver.EventSent}) // no observer: nothing happens

	var got []driver.Event
	obs := func(ev driver.Event) { got = append(got, ev) }
	driver.Notify(obs, clock, driver.Event{Kind: driver.EventSent, MessageID: "m1"})
	earlier := now.Add(-time.Hour)
	driver.Notify(obs, clock, driver.Event{Kind: driver.EventClaimed, Time: earlier})
	require.Len(t, got, 2)
	assert.Equal(t, now, got[0].Time, "a zero time is stamped")
	assert.Equal(t, "m1", got[0].MessageID)
	assert.Equal(t, earlier, got[1].Time, "a time already set is kept")
}
