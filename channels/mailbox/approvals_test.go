package mailbox_test

import (
	"context"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestStartRemovesOwnApprovalsAndPrunesStaleOnes: an agent that starts
// removes the approvals its previous run left (denying the undecided ones
// first, "denied by restart"); its maintenance removes the approvals of
// any agent decided or expired more than store.ApprovalKeep ago (an
// expired one "denied by expiry"), at start and then every pruneInterval;
// what waits, or expired recently, stays. Each removal is in the audit log.
func TestStartRemovesOwnApprovalsAndPrunesStaleOnes(t *testing.T) {
	t.Parallel()
	w := newConvWorld(t)
	ctx := context.Background()
	now := w.clock.Now()
	put := func(id string, created, deadline time.Duration, d *agent.Decision) agent.Approval {
		a := agent.Approval{ID: envelope.NewID(), Agent: id, Kind: "tool", Action: "run tool deploy",
			Created: now.Add(created), Deadline: now.Add(deadline)}
		require.NoError(t, w.st.Approvals().PutApproval(ctx, a))
		if d != nil {
			_, err := w.st.Approvals().DecideApproval(ctx, a.ID, *d)
			require.NoError(t, err)
		}
		return a
	}
	ownWaiting := put("coder", -time.Minute, time.Minute, nil)
	ownDecided := put("coder", -time.Minute, time.Minute, &agent.Decision{Allow: true, By: "operator", Time: now.Add(-time.Second)})
	othersWaiting := put("ops", -time.Minute, time.Minute, nil)
	othersOld := put("ops", -3*time.Hour, -2*time.Hour, nil)
	othersDecidedOld := put("ops", -3*time.Hour, -2*time.Hour, &agent.Decision{By: "u_1", Time: now.Add(-150 * time.Minute)})
	othersRecent := put("ops", -20*time.Minute, -10*time.Minute, nil)

	w.start("coder", func(c *mailbox.Config) { c.PruneInterval = 600 })
	for _, a := range []agent.Approval{ownWaiting, ownDecided} {
		_, err := w.st.Approvals().GetApproval(ctx, a.ID)
		assert.ErrorIs(t, err, agent.ErrNoApproval, "removed at start, before Start returns")
	}
	reasonOf := func(a agent.Approval) string {
		return w.seen.WaitKind(t, store.EventApproval, func(ev store.Event) bool { return ev.Ref == a.ID }).Reason
	}
	assert.Equal(t, "denied by restart: run tool deploy: the agent restarted; the turn that asked is gone", reasonOf(ownWaiting))
	assert.Equal(t, "removed, the agent restarted before acting on it: approved by operator: run tool deploy", reasonOf(ownDecided))
	assert.Equal(t, "denied by expiry: run tool deploy: its agent stopped waiting before anyone decided", reasonOf(othersOld))
	assert.Equal(t, "removed, its agent never picked the decision up: denied by u_1: run tool deploy", reasonOf(othersDecidedOld))

	ids := func() []string {
		list, err := w.st.Approvals().ListApprovals(ctx)
		require.NoError(t, err)
		var out []string
		for _, a := range list {
			out = append(out, a.ID)
		}
		sort.Strings(out)
		return out
	}
	want := []string{othersWaiting.ID, othersRecent.ID}
	sort.Strings(want)
	assert.Equal(t, want, ids(), "what waits or expired recently stays")

	w.clock.Add(time.Hour) // the next round of maintenance: othersRecent expired 70 minutes ago
	reasonOf(othersRecent)
	_, err := w.st.Approvals().GetApproval(ctx, othersRecent.ID)
	assert.ErrorIs(t, err, agent.ErrNoApproval)
}

// A task canceled by its delegator while its turn waits for an approval
// has that approval denied ("cancel"), so the turn goes on at once and no
// person is asked to allow dropped work; the approvals of other tasks and
// other agents still wait.
func TestCancelDeniesTheTasksApprovals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	boss := e.peer(t, "boss")
	req := task("boss", "coder", "t1", "release it")
	e.deliver(t, req)
	boss.expectUpdate(t, "t1", envelope.StateAccepted)
	a.take(t) // the turn on t1, which waits for its approval
	ctx := context.Background()
	now := time.Now()
	put := func(id, taskID string) agent.Approval {
		ap := agent.Approval{ID: envelope.NewID(), Agent: id, Kind: "task", Action: "work on a task from boss",
			TaskID: taskID, Created: now, Deadline: now.Add(time.Hour)}
		require.NoError(t, e.st.Approvals().PutApproval(ctx, ap))
		return ap
	}
	mine, otherTask, otherAgent := put("coder", "t1"), put("coder", "t2"), put("ops", "t1")

	cancel := msg("boss", "coder", envelope.TypeTaskUpdate, "never mind")
	cancel.Task = &envelope.Task{ID: "t1", State: envelope.StateCanceled}
	e.deliver(t, cancel)
	e.waitEvent(t, store.EventProcessed, req.ID) // t1 is handled by its cancel, after its approvals are denied

	got, err := e.st.Approvals().GetApproval(ctx, mine.ID)
	require.NoError(t, err)
	require.NotNil(t, got.Decision, "the canceled task's approval is decided")
	assert.False(t, got.Decision.Allow)
	assert.Equal(t, mailbox.ByCancel, got.Decision.By)
	assert.Equal(t, "the task was canceled by boss", got.Decision.Reason)
	for _, id := range []string{otherTask.ID, otherAgent.ID} {
		got, err := e.st.Approvals().GetApproval(ctx, id)
		require.NoError(t, err)
		assert.Nil(t, got.Decision, "others still wait")
	}
}

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
