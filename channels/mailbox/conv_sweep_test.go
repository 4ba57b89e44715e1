package mailbox_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// When a task ends, each side's handled messages of the task move to its
// archive/by-task/<task>/; the conversation stays readable as a thread.
func TestTaskEndSweepsItsMessages(t *testing.T) {
	w := newConvWorld(t)
	lead, coder := w.start("lead"), w.start("coder")
	taskMsg := lead.post(t, route.Request{To: "coder", Type: envelope.TypeTask, Text: "sort 3 1 2", TaskID: "sort-1"})
	coder.next(t)
	accepted := lead.next(t)
	am, _ := meta.Of(accepted.Metadata)
	w.seen.waitFor(t, store.EventProcessed, am.MessageID)
	// A question inside the task, answered before the task ends.
	q := coder.post(t, route.Request{To: "lead", Text: "ascending?", ExpectsReply: true, TaskID: "sort-1"})
	qin := lead.next(t)
	lead.post(t, route.Request{To: "coder", Text: "yes", ReplyTo: q, Parent: func() *meta.Meta { m, _ := meta.Of(qin.Metadata); return m }()})
	answer := coder.next(t)
	anm, _ := meta.Of(answer.Metadata)
	w.seen.waitFor(t, store.EventProcessed, anm.MessageID)

	done, err := coder.FinishTask(context.Background(), "sort-1", envelope.StateCompleted, "1 2 3", "", nil)
	require.NoError(t, err)
	final := lead.next(t)
	assert.Equal(t, "[task sort-1 completed by coder]\n1 2 3", final.Content)
	for _, id := range []string{taskMsg, anm.MessageID, am.MessageID, q, done.ID} {
		w.seen.waitFor(t, store.EventSwept, id) // one sweep moves several, in no set order
	}

	where := map[string]string{}
	require.NoError(t, w.store.Browse(context.Background(), func(s store.Stored) bool {
		where[s.Message.ID] = s.Agent + " " + filepath.Dir(s.Ref)
		return true
	}))
	byTask := func(agent string) string { return agent + " " + filepath.Join(agent, "archive", "by-task", "sort-1") }
	assert.Equal(t, byTask("coder"), where[taskMsg], "the request, at the worker")
	assert.Equal(t, byTask("coder"), where[anm.MessageID], "the answer to the worker's question")
	assert.Equal(t, byTask("lead"), where[am.MessageID], "the accepted update, at the delegator")
	assert.Equal(t, byTask("lead"), where[q], "the worker's question")
	assert.Equal(t, byTask("lead"), where[done.ID], "the final update")

	chain, err := view.Thread(context.Background(), w.st, done.ID)
	require.NoError(t, err)
	var ids []string
	for _, e := range chain {
		ids = append(ids, e.Message.ID)
		assert.Equal(t, store.BoxArchive, e.Box)
	}
	assert.Contains(t, ids, taskMsg)
	assert.Contains(t, ids, done.ID)
	assert.Empty(t, lead.PendingReplies("sort-1").Awaited)
	assert.Empty(t, coder.PendingReplies("sort-1").Owed)
}

// A rejected task is swept at once at the worker.
func TestRejectedTaskIsSwept(t *testing.T) {
	w := newConvWorld(t)
	lead, _ := w.start("lead"), w.start("coder")
	past := time.Now().Add(-time.Hour)
	id := lead.post(t, route.Request{To: "coder", Type: envelope.TypeTask, Text: "too late", TaskID: "late-1", Deadline: past})
	ev := w.seen.waitFor(t, store.EventSwept, id)
	assert.Equal(t, "coder", ev.Agent)
	assert.Equal(t, filepath.Join("archive", "by-task", "late-1"), filepath.Dir(ev.Ref))
}

// The running channel applies the retention bounds at start.
func TestChannelPrunesAtStart(t *testing.T) {
	w := newConvWorld(t)
	old := newTestMessage(t, "lead", "coder")
	require.NoError(t, w.store.Deliver(context.Background(), old))
	in, err := w.store.OpenInbox(context.Background(), "coder")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	d, err := in.Next(ctx)
	require.NoError(t, err)
	require.NoError(t, in.Ack(ctx, d))
	require.NoError(t, in.Close())
	w.clock.Add(8 * 24 * time.Hour) // older than processedMaxAge (7 days)

	w.start("coder")
	ev := w.seen.waitFor(t, store.EventPruned, "")
	assert.Equal(t, "coder", ev.Agent)
	assert.Contains(t, ev.Reason, "removed 1 file(s)")
}

func newTestMessage(t *testing.T, from, to string) *envelope.Message {
	t.Helper()
	m, err := route.Compose(from, route.Request{To: to, Text: "x"}, route.ComposeOptions{})
	require.NoError(t, err)
	return m
}

var _ driver.Pruner = (*fsstore.Inbox)(nil)
