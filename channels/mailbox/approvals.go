package mailbox

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// This file is the approvals of this agent's turns: the book the agent
// loop keeps them in (the channel's store, with an audit entry for each),
// and their tidying: denied when their task is canceled, removed when the
// turn that asked is gone (a restart) or nobody waits for them any more.

// Who decided the approvals the channel tidies (store.Decision.By).
const (
	// ByRestart denies the approvals an agent's previous process left
	// waiting: the turn that asked is gone.
	ByRestart = "restart"
	// ByExpiry denies an approval that stayed past its deadline without a
	// decision for store.ApprovalKeep: its agent stopped waiting.
	ByExpiry = "expiry"
	// ByCancel denies the approvals a task's turn waits for when the task
	// is canceled: nobody should be asked to allow work that is dropped.
	ByCancel = "cancel"
)

// errNoBook is the error of an approval asked before the channel's store
// is open.
var errNoBook = errors.New("the mailbox store is not open yet")

// ApprovalBook returns the book the agent loop keeps this agent's
// approvals in: the channel's store, where `switchboard approvals` and
// the console list and decide them. The book records in the audit log
// what goes through it: each approval asked, and each decision made
// through it (in the chat, at the timeout, at the agent's stop); a
// decision made elsewhere (the operator's) is recorded where it is made.
// An approval asked in the turn of a task canceled meanwhile is denied at
// once (ByCancel). The store is looked up at each call: the channel opens
// it when it starts.
func (c *Channel) ApprovalBook() agent.ApprovalBook { return approvalBook{c} }

// approvalBook is the ApprovalBook of a channel.
type approvalBook struct{ c *Channel }

var _ agent.ApprovalBook = approvalBook{}

func (b approvalBook) book() (agent.ApprovalBook, error) {
	st := b.c.Backend()
	if st == nil {
		return nil, errNoBook
	}
	return st.Approvals(), nil
}

// PutApproval implements agent.ApprovalBook. An approval asked in the
// turn of a task canceled meanwhile (the cancel came while the turn was
// under way) is denied at once, as the cancel denies those asked before
// it: the waiting turn reads the decision and goes on.
func (b approvalBook) PutApproval(ctx context.Context, a agent.Approval) error {
	ab, err := b.book()
	if err != nil {
		return err
	}
	if err := ab.PutApproval(ctx, a); err != nil {
		return err
	}
	b.c.recordApproval(ctx, a)
	if b.c.Canceled(a.TaskID) {
		d := agent.Decision{By: ByCancel, Reason: "the task was canceled", Time: a.Created}
		got, err := ab.DecideApproval(ctx, a.ID, d)
		switch {
		case err == nil:
			b.c.recordApproval(ctx, got)
		case !errors.Is(err, agent.ErrDecided):
			b.c.Logger().Warn("approval of a canceled task not denied", "id", a.ID, "task", a.TaskID, "err", err)
		}
	}
	return nil
}

// GetApproval implements agent.ApprovalBook.
func (b approvalBook) GetApproval(ctx context.Context, id string) (agent.Approval, error) {
	ab, err := b.book()
	if err != nil {
		return agent.Approval{}, err
	}
	return ab.GetApproval(ctx, id)
}

// ListApprovals implements agent.ApprovalBook.
func (b approvalBook) ListApprovals(ctx context.Context) ([]agent.Approval, error) {
	ab, err := b.book()
	if err != nil {
		return nil, err
	}
	return ab.ListApprovals(ctx)
}

// DecideApproval implements agent.ApprovalBook; the decision that is
// recorded is in the audit log (one that loses to another's is not).
func (b approvalBook) DecideApproval(ctx context.Context, id string, d agent.Decision) (agent.Approval, error) {
	ab, err := b.book()
	if err != nil {
		return agent.Approval{}, err
	}
	got, err := ab.DecideApproval(ctx, id, d)
	if err == nil {
		b.c.recordApproval(ctx, got)
	}
	return got, err
}

// DeleteApproval implements agent.ApprovalBook.
func (b approvalBook) DeleteApproval(ctx context.Context, id string) error {
	ab, err := b.book()
	if err != nil {
		return err
	}
	return ab.DeleteApproval(ctx, id)
}

// recordApproval appends to the audit log what happened to a: asked, or
// decided (Approval.Summary).
func (c *Channel) recordApproval(ctx context.Context, a agent.Approval) {
	if c.Backend() == nil {
		return
	}
	c.record(ctx, store.Event{Kind: store.EventApproval, Agent: a.Agent, From: a.Agent, Ref: a.ID,
		Reason: a.Summary(), MessageID: a.MessageID, TaskID: a.TaskID})
}

// denyTaskApprovals denies the approvals this agent waits for in the turn
// of task taskID, which `by` canceled, and records the denial in the
// audit log. The waiting turn reads the decision from the store (it polls
// it) and goes on, so the task's approval is neither asked of a person
// any longer nor left to time out.
func (c *Channel) denyTaskApprovals(ctx context.Context, taskID, by string) {
	ab := c.backend.Approvals()
	list, err := ab.ListApprovals(ctx)
	if err != nil {
		c.Logger().Warn("approvals of a canceled task not denied", "task", taskID, "err", err)
		return
	}
	for _, a := range list {
		if a.Agent != c.cfg.AgentID || a.TaskID != taskID || a.Decision != nil {
			continue
		}
		d := agent.Decision{By: ByCancel, Reason: "the task was canceled by " + by, Time: c.clk.Now()}
		got, err := ab.DecideApproval(ctx, a.ID, d)
		switch {
		case err == nil:
			c.recordApproval(ctx, got)
		case !errors.Is(err, agent.ErrDecided) && !errors.Is(err, agent.ErrNoApproval):
			c.Logger().Warn("approval of a canceled task not denied", "id", a.ID, "task", taskID, "err", err)
		}
	}
}

// tidyOwnApprovals removes the approvals this agent's previous process
// left in the store (it crashed or was killed while a turn waited): none
// of them can be acted on, since the turn that asked is gone. One without
// a decision is denied first, so that the audit log says how it ended.
// It runs at Start, once the inbox is this process's and before any turn
// can ask.
func (c *Channel) tidyOwnApprovals(ctx context.Context) {
	ab := c.backend.Approvals()
	list, err := ab.ListApprovals(ctx)
	if err != nil {
		c.Logger().Warn("approvals of a previous run not checked", "err", err)
		return
	}
	for _, a := range list {
		if a.Agent != c.cfg.AgentID {
			continue
		}
		c.endApproval(ctx, ab, a, agent.Decision{By: ByRestart, Reason: "the agent restarted; the turn that asked is gone",
			Time: c.clk.Now()}, "the agent restarted before acting on it")
	}
}

// pruneApprovals removes the approvals of every agent that no agent waits
// for any more (store.Approval.Stale with store.ApprovalKeep): decided but
// never picked up, or expired without a decision (denied first). The
// running agents take turns at it (one per pruneInterval, on a store that
// shares duties), with the rest of their maintenance: every agent that
// starts would otherwise read every approval.
func (c *Channel) pruneApprovals(ctx context.Context) {
	turn, err := c.backend.TakeTurn(ctx, pruneApprovalsDuty, c.clk.Now(), seconds(c.cfg.PruneInterval))
	if err != nil {
		c.Logger().Debug("approvals pruned without taking turns", "err", err)
		turn = true
	}
	if !turn {
		return
	}
	ab := c.backend.Approvals()
	list, err := ab.ListApprovals(ctx)
	if err != nil {
		if ctx.Err() == nil {
			c.Logger().Warn("old approvals not pruned", "err", err)
		}
		return
	}
	now := c.clk.Now()
	for _, a := range list {
		if !a.Stale(now, agent.ApprovalKeep) {
			continue
		}
		c.endApproval(ctx, ab, a, agent.Decision{By: ByExpiry, Reason: "its agent stopped waiting before anyone decided",
			Time: now}, "its agent never picked the decision up")
	}
}

// pruneApprovalsDuty is the shared duty of pruneApprovals.
const pruneApprovalsDuty = "prune-approvals"

// endApproval removes approval a, after denying it with d when it has no
// decision; the audit log says which. unused says why a decision that
// was made is dropped.
func (c *Channel) endApproval(ctx context.Context, ab agent.ApprovalBook, a agent.Approval, d agent.Decision, unused string) {
	what := ""
	if a.Decision == nil {
		got, err := ab.DecideApproval(ctx, a.ID, d)
		switch {
		case err == nil:
			what = got.Summary()
		case errors.Is(err, agent.ErrDecided) && got.Decision != nil:
			a = got // decided meanwhile: dropped all the same
		case errors.Is(err, agent.ErrNoApproval):
			return // removed meanwhile
		default:
			c.Logger().Warn("approval not denied", "id", a.ID, "err", err)
			return
		}
	}
	if what == "" {
		what = "removed, " + unused + ": " + a.Summary()
	}
	if err := ab.DeleteApproval(ctx, a.ID); err != nil {
		c.Logger().Warn("approval not removed", "id", a.ID, "err", err)
		return
	}
	c.Logger().Info("approval removed", "id", a.ID, "agent", a.Agent, "what", what)
	c.record(ctx, store.Event{Kind: store.EventApproval, Agent: a.Agent, From: c.cfg.AgentID, Ref: a.ID,
		Reason: what, MessageID: a.MessageID, TaskID: a.TaskID})
}

var _ agent.RefusalRecorder = approvalBook{}

// RecordRefusal implements agent.RefusalRecorder: a refused answer is in
// the audit log with the approval's other steps; one that came from
// another agent names that agent and its message.
func (b approvalBook) RecordRefusal(ctx context.Context, a agent.Approval, r agent.Refusal) {
	if b.c.Backend() == nil {
		return
	}
	ev := store.Event{Kind: store.EventApproval, Agent: a.Agent, From: a.Agent, Ref: a.ID,
		Reason: r.Summary(a), MessageID: a.MessageID, TaskID: a.TaskID}
	if r.FromAgent {
		ev.From, ev.MessageID = r.By, r.MessageID
	}
	b.c.record(ctx, ev)
}
