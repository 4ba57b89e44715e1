package console_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/console"
)

// bigStore is a folder store holding n messages: conversations of a
// request, its reply, a task and its update between ten agents.
func bigStore(b testing.TB, n int) *store.Store {
	fs, err := fsstore.Open(fsstore.Options{Root: b.TempDir(), NoSync: true})
	require.NoError(b, err)
	be := store.New(fs, nil)
	b.Cleanup(func() { be.Close() })
	ctx := context.Background()
	base := time.Now().Add(-time.Duration(n) * time.Second)
	agents := []string{"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9"}
	for i := 0; i < n; i += 4 {
		a, c := agents[i%10], agents[(i/10+i+1)%10]
		at := func(k int) envelope.Time { return envelope.NewTime(base.Add(time.Duration(i+k) * time.Second)) }
		text := []envelope.Part{envelope.TextPart(strings.Repeat("lorem ipsum ", 20))}
		req := &envelope.Message{ID: envelope.NewID(), From: a, To: c, Type: envelope.TypeMessage, ExpectsReply: true, TTL: 3,
			Timestamp: at(0), Content: envelope.Content{Parts: text}}
		req.ThreadID = req.ID
		rep := &envelope.Message{ID: envelope.NewID(), From: c, To: a, Type: envelope.TypeMessage, ReplyTo: req.ID, ThreadID: req.ID, TTL: 3,
			Timestamp: at(1), Content: envelope.Content{Parts: text}}
		task := &envelope.Message{ID: envelope.NewID(), From: a, To: c, Type: envelope.TypeTask, ThreadID: req.ID, TTL: 3, Trace: []string{a},
			Task: &envelope.Task{ID: fmt.Sprintf("t%d", i), State: envelope.StatePending}, Timestamp: at(2), Content: envelope.Content{Parts: text}}
		upd := &envelope.Message{ID: envelope.NewID(), From: c, To: a, Type: envelope.TypeTaskUpdate, ThreadID: req.ID, ReplyTo: task.ID, TTL: 3,
			Task: &envelope.Task{ID: task.Task.ID, State: envelope.StateCompleted}, Timestamp: at(3), Content: envelope.Content{Parts: text}}
		for _, m := range []*envelope.Message{req, rep, task, upd} {
			require.NoError(b, be.Deliver(ctx, m))
		}
	}
	return be
}

// BenchmarkState20000: what one read of the page's state costs on 20,000
// stored messages, after the first.
func BenchmarkState20000(b *testing.B) {
	be := bigStore(b, 20000)
	c, err := console.New(console.Config{Store: be, Token: token})
	require.NoError(b, err)
	_, err = c.State(context.Background()) // the first read reads every message
	require.NoError(b, err)
	b.ResetTimer()
	for b.Loop() {
		_, err := c.State(context.Background())
		require.NoError(b, err)
	}
}
