package mailbox_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// An approval asked in the turn of a task canceled meanwhile (the cancel
// was taken in while the turn was under way, before it asked) is denied
// at once; one of a task still held waits. The book records in the audit
// log each approval asked and each decision made through it.
func TestApprovalOfATaskCanceledBeforeItWasAskedIsDenied(t *testing.T) {
	t.Parallel()
	events := testkit.NewEvents()
	st, err := fsstore.Open(fsstore.Options{Root: filepath.Join(t.TempDir(), "mb"), NoSync: true, AuditLog: true,
		Observer: events.Observe})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	cfg := mailbox.DefaultConfig()
	cfg.AgentID, cfg.MailboxesRoot, cfg.Fsync = "coder", st.Root(), false
	b := bus.New(8)
	mb, err := mailbox.New(cfg, b, mailbox.Options{Backend: store.New(st, nil)})
	require.NoError(t, err)
	require.NoError(t, mb.Start(context.Background()))
	t.Cleanup(func() { _ = mb.Stop(testkit.Ctx(t)); b.Close() })

	ctx := testkit.Ctx(t)
	send := func(typ envelope.Type, id string, state envelope.TaskState) *envelope.Message {
		m := &envelope.Message{ID: envelope.NewID(), From: "boss", To: "coder", Timestamp: envelope.NewTime(time.Now()),
			Type: typ, TTL: 3, Trace: []string{"boss"}, Task: &envelope.Task{ID: id, State: state},
			Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("release " + id)}}}
		require.NoError(t, st.Deliver(ctx, m))
		return m
	}
	t1 := send(envelope.TypeTask, "t1", envelope.StatePending)
	send(envelope.TypeTask, "t2", envelope.StatePending)
	for range 2 {
		_, err := b.ConsumeInbound(ctx) // the turns on t1 and t2, under way
		require.NoError(t, err)
	}
	send(envelope.TypeTaskUpdate, "t1", envelope.StateCanceled)
	events.WaitKind(t, store.EventProcessed, testkit.ByID(t1.ID)) // t1 ended by its cancel
	assert.True(t, mb.Canceled("t1"))

	book := mb.ApprovalBook()
	now := time.Now()
	ask := func(task string) agent.Approval {
		a := agent.Approval{ID: envelope.NewID(), Agent: "coder", Kind: "task", Action: "work on a task from boss",
			TaskID: task, Created: now, Deadline: now.Add(time.Hour)}
		require.NoError(t, book.PutApproval(ctx, a))
		got, err := book.GetApproval(ctx, a.ID)
		require.NoError(t, err)
		return got
	}
	audit := func(id string) []string {
		var out []string
		for _, ev := range events.All() {
			if ev.Kind == store.EventApproval && ev.Ref == id {
				out = append(out, ev.Reason)
			}
		}
		return out
	}
	canceled := ask("t1")
	require.NotNil(t, canceled.Decision, "asked after its task was canceled: denied at once")
	assert.False(t, canceled.Decision.Allow)
	assert.Equal(t, mailbox.ByCancel, canceled.Decision.By)
	assert.Equal(t, []string{"asked: work on a task from boss", "denied by cancel: work on a task from boss: the task was canceled"},
		audit(canceled.ID))
	waiting := ask("t2")
	assert.Nil(t, waiting.Decision, "a task still held waits for its approval")

	// A decision made through the book is recorded; one that loses to
	// another's is not (that one was recorded where it was made).
	_, err = book.DecideApproval(ctx, waiting.ID, agent.Decision{Allow: true, By: "u_1", Time: now})
	require.NoError(t, err)
	_, err = book.DecideApproval(ctx, waiting.ID, agent.Decision{By: "timeout", Time: now})
	require.ErrorIs(t, err, agent.ErrDecided)
	assert.Equal(t, []string{"asked: work on a task from boss", "approved by u_1: work on a task from boss"}, audit(waiting.ID))
}

// Before the channel's store is open the book keeps nothing.
func TestApprovalBookNeedsTheStore(t *testing.T) {
	t.Parallel()
	cfg := mailbox.DefaultConfig()
	cfg.AgentID = "coder"
	mb, err := mailbox.New(cfg, bus.New(1), mailbox.Options{})
	require.NoError(t, err)
	err = mb.ApprovalBook().PutApproval(context.Background(), agent.Approval{ID: "a"})
	assert.ErrorContains(t, err, "store is not open yet")
}
