package mailbox

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

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
// never picked up, or expired without a decision (denied first). Any
// running agent does it, with the rest of its maintenance.
func (c *Channel) pruneApprovals(ctx context.Context) {
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
