package channels_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestRunResumesAndFinishes: ResumeIn hands the journal's unfinished
// messages over in the background; Finish waits for the run's goroutines
// and closes the journal, and names what was left when its ctx ends
// first.
func TestRunResumesAndFinishes(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "j.jsonl")
	j, err := channels.OpenJournal(path)
	require.NoError(t, err)
	first := channels.NewBase("slack", []string{"*"}, bus.New(4), nil)
	first.UseJournal(j)
	require.NoError(t, first.HandleMessage(testkit.Ctx(t), bus.InboundMessage{SenderID: "u", ChatID: "c", Content: "hi", ID: "m1"}))
	require.NoError(t, j.Close()) // stopped before the turn finished

	j2, err := channels.OpenJournal(path)
	require.NoError(t, err)
	b := bus.New(4)
	base := channels.NewBase("slack", []string{"*"}, b, nil)
	base.UseJournal(j2)
	var g sync.WaitGroup
	base.ResumeIn(testkit.Ctx(t), &g)
	again, err := b.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, "m1", again.ID)
	assert.True(t, again.Redelivered)

	stuck := make(chan struct{})
	g.Go(func() { <-stuck })
	over, cancel := context.WithCancel(t.Context())
	cancel()
	err = base.Finish(over, &g, "events in hand")
	assert.ErrorContains(t, err, "slack: events in hand not finished in time")
	close(stuck)
	g.Wait()
	_, _, err = j2.Add(bus.InboundMessage{SenderID: "u", ChatID: "c", Content: "late", ID: "m2"})
	assert.Error(t, err, "the journal is closed even when the wait was cut short")

	var none sync.WaitGroup
	bare := channels.NewBase("slack", nil, bus.New(1), nil)
	assert.NoError(t, bare.Finish(testkit.Ctx(t), &none, "events in hand"), "a channel without a journal finishes at once")
}
