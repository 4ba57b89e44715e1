package audit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestEnqueuedLinesAreWrittenInOrder: queued lines reach the log by
// themselves, in the order they were queued, and before a line appended
// later.
func TestEnqueuedLinesAreWrittenInOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := Open(dir, Options{})
	require.NoError(t, err)
	defer w.Close()
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	ids := []string{"m1", "m2", "m3"}
	for i, id := range ids {
		w.Enqueue(store.Event{Time: t0.Add(time.Duration(i) * time.Second), Kind: store.EventClaimed, Agent: "coder", MessageID: id})
	}
	deadline := time.After(testkit.WaitLimit)
	for {
		if got, _ := readAll(t, dir, Filter{}); len(got) == len(ids) {
			break
		}
		select {
		case <-deadline:
			t.Fatal("queued lines not written by the background flush")
		case <-time.After(time.Millisecond):
		}
	}
	w.Enqueue(store.Event{Time: t0.Add(5 * time.Second), Kind: store.EventClaimed, Agent: "coder", MessageID: "m4"})
	require.NoError(t, w.Append(store.Event{Time: t0.Add(6 * time.Second), Kind: store.EventProcessed, Agent: "coder", MessageID: "m5"}))
	got, _ := readAll(t, dir, Filter{})
	var order []string
	for _, e := range got {
		order = append(order, e.MessageID)
	}
	assert.Equal(t, []string{"m1", "m2", "m3", "m4", "m5"}, order)
}

// TestLockedWritesQueuedLinesBeforeFn: fn, which may read the log (a
// receiver checking for a dead sender's "sent" line), sees the lines this
// process queued before it.
func TestLockedWritesQueuedLinesBeforeFn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := Open(dir, Options{})
	require.NoError(t, err)
	defer w.Close()
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	w.Enqueue(store.Event{Time: t0, Kind: store.EventSent, Agent: "coder", MessageID: "m1"})
	var seen int
	require.NoError(t, w.Locked(func() *store.Event {
		got, _ := readAll(t, dir, Filter{MessageID: "m1"})
		seen = len(got)
		return &store.Event{Time: t0.Add(time.Second), Kind: store.EventClaimed, Agent: "coder", MessageID: "m1"}
	}))
	assert.Equal(t, 1, seen, "the queued line was written before fn ran")
	got, _ := readAll(t, dir, Filter{MessageID: "m1"})
	require.Len(t, got, 2)
	assert.Equal(t, store.EventClaimed, got[1].Kind)
}
