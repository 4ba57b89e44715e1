package mailbox

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// This file keeps delegated work from waiting for ever. The delegator
// owns the record of each task it sent (internal/ledger's Delegated; the
// receive path's onUpdate routes the task's updates by it), and watches
// it for a deadline that passes without a result (the task fails and the
// conversation it began in is told), and for two ways the work gets lost:
//
//	not accepted  no accepted (or rejected) update within acceptTimeout
//	worker lost   the worker accepted it, then went offline past
//	              offlineAfter (its heartbeat stopped: it crashed)
//
// Either way a task sent for a capability or role (any:NAME, cap:NAME)
// is offered to the next online holder not tried yet, and the old worker
// is told the task is canceled. Otherwise a lost task fails and the
// conversation it began in is told why; a task sent to one agent by name
// that is not accepted in time stays in that agent's inbox, and the
// conversation is told once that it waits.

// delegation returns the record of task message msg, sent for req. The
// task's content is kept when it may be sent again: to another holder of
// a group, or by an escalation's decision (escalates).
func delegation(msg *envelope.Message, req route.Request, escalates bool) ledger.Record {
	rec := ledger.RecordOf(msg, req.Callback, meta.TreeOf(req.Tree, req.Parent))
	rec.Via = req.Via
	if _, _, ok := rec.Group(); ok || escalates {
		rec.Parts, rec.Budget = msg.Content.Parts, msg.Task.Budget
	}
	return rec
}

// delegatedDeadlines watches the deadlines of tasks this agent delegated.
// When one passes without a final update, the task is dropped and the
// conversation it began in gets a notice, so the user learns of it.
func (c *Channel) delegatedDeadlines(ctx context.Context, sent *ledger.Delegated) {
	ledger.Watch(ctx, c.clk, sent.Changed(), sent.NextDeadline,
		func(t ledger.Record) time.Time { return t.Deadline.Time },
		func(t ledger.Record) { c.taskOverdue(ctx, sent, t) })
}

func (c *Channel) taskOverdue(ctx context.Context, sent *ledger.Delegated, t ledger.Record) {
	if cur, ok := sent.Lookup(t.TaskID, t.To); !ok || cur.Deadline == nil || cur.Deadline.After(c.clk.Now()) {
		return // ended, or its deadline moved
	}
	if c.escalateOverdue(ctx, t) {
		return
	}
	if err := sent.SetState(ctx, t.TaskID, envelope.StateFailed); err != nil {
		c.Logger().Warn("record overdue task", "task", t.TaskID, "err", err)
	}
	ledger.Sweep(ctx, c.inbox, t.TaskID, c.Logger())
	mt := meta.Meta{From: t.To, To: c.cfg.AgentID, Type: envelope.TypeTaskUpdate, ThreadID: t.ThreadID,
		Task:    &envelope.Task{ID: t.TaskID, State: envelope.StateFailed, Reason: "no result by deadline"},
		ReplyTo: t.MessageID}
	c.Logger().Warn("delegated task overdue", "task", t.TaskID, "to", t.To)
	c.notify(ctx, mt, t.Callback, ledger.TaskOverdueNotice(t))
}

// toldBefore reports whether update m of task rec, which this agent
// delegated, tells a notice the conversation was told before by another
// update: a worker that restarts accepts the task it is handed again, and
// may repeat its progress; the conversation hears each once, across
// restarts of either agent (Record.Told). The result is no notice.
func (c *Channel) toldBefore(ctx context.Context, rec ledger.Record, m *envelope.Message) bool {
	if m.Task == nil || m.Task.State.Terminal() {
		return false
	}
	tell, err := c.sent.Tell(ctx, rec.TaskID, ledger.NoticeKey(m), m.ID)
	if err != nil {
		c.Logger().Warn("record notice told", "task", rec.TaskID, "err", err)
	}
	if !tell {
		c.Logger().Info("update of a delegated task told already; not told again",
			"task", rec.TaskID, "state", m.Task.State, "id", m.ID, "from", m.From)
	}
	return !tell
}

// acceptDeadlines watches the tasks this agent delegated that their
// worker has not accepted yet.
func (c *Channel) acceptDeadlines(ctx context.Context, sent *ledger.Delegated) {
	timeout := seconds(c.cfg.AcceptTimeout)
	ledger.Watch(ctx, c.clk, sent.Sent(), sent.NextUnaccepted,
		func(t ledger.Record) time.Time { return ledger.AcceptDue(t, timeout) },
		func(t ledger.Record) { c.notAccepted(ctx, sent, t, timeout) })
}

func (c *Channel) notAccepted(ctx context.Context, sent *ledger.Delegated, t ledger.Record, timeout time.Duration) {
	cur, ok := sent.Lookup(t.TaskID, t.To)
	if !ok || cur.State != envelope.StatePending || cur.Noticed || ledger.AcceptDue(cur, timeout).After(c.clk.Now()) {
		return // accepted, ended, sent again, or the clock moved back
	}
	c.reoffer(ctx, sent, cur, fmt.Sprintf("%s did not accept it within %s (channels.mailbox.acceptTimeout)", cur.To, timeout))
}

// lostWorkers checks, at every tick of t, the tasks this agent delegated
// and whose worker accepted them, for workers gone offline.
func (c *Channel) lostWorkers(ctx context.Context, sent *ledger.Delegated, t clock.Ticker) {
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			c.findLostWorkers(ctx, sent)
		}
	}
}

// findLostWorkers does one pass of lostWorkers: a worker is lost when it
// counts as offline and its last heartbeat is older than offlineAfter
// (an agent stopped on purpose comes back with its tasks, if it comes
// back within that time).
func (c *Channel) findLostWorkers(ctx context.Context, sent *ledger.Delegated) {
	working := sent.Working()
	if len(working) == 0 {
		return
	}
	agents, err := c.Agents(ctx, false)
	if err != nil {
		if ctx.Err() == nil {
			c.Logger().Warn("workers of delegated tasks not checked", "err", err)
		}
		return
	}
	limit := seconds(c.cfg.OfflineAfter)
	for _, t := range working {
		i := slices.IndexFunc(agents, func(a view.Agent) bool { return a.AgentID == t.To })
		if i >= 0 && (agents[i].Effective != envelope.StatusOffline || envelope.HeartbeatFresh(agents[i].LastHeartbeat.Time, c.clk.Now(), limit)) {
			continue
		}
		c.reoffer(ctx, sent, t, fmt.Sprintf("%s went offline while working on it (no heartbeat for %s)", t.To, limit))
	}
}

// reoffer sends task t, which its worker did not take up or lost, to the
// next holder of the capability it was sent for; without one it fails
// the task (or, for a task sent to one agent that waits unaccepted, tells
// the conversation once) with why.
func (c *Channel) reoffer(ctx context.Context, sent *ledger.Delegated, t ledger.Record, why string) {
	if next, ok := c.nextHolder(ctx, t); ok {
		err := c.sendAgain(ctx, sent, t, next)
		if err == nil {
			c.cancelAt(ctx, t, why+"; offered to "+next)
			c.Logger().Warn("delegated task offered to another worker", "task", t.TaskID, "from", t.To, "to", next, "why", why)
			return
		}
		c.Logger().Warn("delegated task not offered to another worker", "task", t.TaskID, "to", next, "err", err)
		why += fmt.Sprintf("; offering it to %s failed: %v", next, err)
	} else if _, name, ok := t.Group(); ok {
		why += "; no other online agent offers " + name
	}
	if c.escalateLost(ctx, t, why) {
		return
	}
	if t.State == envelope.StatePending && t.Via == "" {
		c.stillWaiting(ctx, sent, t, why)
		return
	}
	c.cancelAt(ctx, t, why)
	if err := sent.SetState(ctx, t.TaskID, envelope.StateFailed); err != nil {
		c.Logger().Warn("record lost task", "task", t.TaskID, "err", err)
	}
	c.subtaskEnded(ctx, t, nil) // what the lost worker spent is not known; its budget is freed
	ledger.Sweep(ctx, c.inbox, t.TaskID, c.Logger())
	c.Logger().Warn("delegated task failed: its work is lost", "task", t.TaskID, "to", t.To, "why", why)
	mt := meta.Meta{From: t.To, To: c.cfg.AgentID, Type: envelope.TypeTaskUpdate, ThreadID: t.ThreadID,
		Task: &envelope.Task{ID: t.TaskID, State: envelope.StateFailed, Reason: why}, ReplyTo: t.MessageID}
	c.notify(ctx, mt, t.Callback, fmt.Sprintf("task %s delegated to %s is treated as failed: %s", t.TaskID, t.To, why))
}

// stillWaiting tells the conversation of task t, sent to one agent by
// name, that it waits unaccepted in that agent's inbox (once): a notice of
// state pending, whose reason is why and whose text says where it waits,
// which the loop tells as "task <id>: <why>; it waits in <agent>'s inbox
// until <agent> takes it up".
func (c *Channel) stillWaiting(ctx context.Context, sent *ledger.Delegated, t ledger.Record, why string) {
	if err := sent.Update(ctx, t.TaskID, func(r *ledger.Record) { r.Noticed = true }); err != nil {
		c.Logger().Warn("record notice of unaccepted task", "task", t.TaskID, "err", err)
	}
	text := fmt.Sprintf("it waits in %s's inbox until %s takes it up", t.To, t.To)
	mt := meta.Meta{From: t.To, To: c.cfg.AgentID, Type: envelope.TypeTaskUpdate, ThreadID: t.ThreadID,
		Task: &envelope.Task{ID: t.TaskID, State: envelope.StatePending, Reason: why}, ReplyTo: t.MessageID}
	c.Logger().Warn("delegated task not accepted in time", "task", t.TaskID, "to", t.To)
	c.notify(ctx, mt, t.Callback, text)
}

// nextHolder returns the online agent, other than this one and those
// task t was offered to, that holds the capability (or for any:, the
// role) t was sent for, the one with the most free task slots first.
func (c *Channel) nextHolder(ctx context.Context, t ledger.Record) (string, bool) {
	kind, name, ok := t.Group()
	if !ok {
		return "", false
	}
	agents, err := c.Agents(ctx, true)
	if err != nil {
		c.Logger().Warn("no other worker looked for", "task", t.TaskID, "err", err)
		return "", false
	}
	match := view.ByCapability(name)
	if kind == "any" {
		match = func(a view.Agent) bool { return a.HasCapability(name) || a.HasRole(name) }
	}
	for _, a := range view.Holders(agents, c.cfg.AgentID, match) {
		if a.AgentID != t.To && !slices.Contains(t.Tried, a.AgentID) {
			return a.AgentID, true
		}
	}
	return "", false
}

// sendAgain sends task t to agent next, as the same task.
func (c *Channel) sendAgain(ctx context.Context, sent *ledger.Delegated, t ledger.Record, next string) error {
	req := route.Request{To: next, Type: envelope.TypeTask, TaskID: t.TaskID, Parts: t.Parts, Callback: t.Callback,
		ThreadID: t.ThreadID, Budget: t.Budget, Via: t.Via, Tree: meta.TreeAt(t.ParentTask, t.ParentPath)}
	if t.Deadline != nil {
		req.Deadline = t.Deadline.Time
	}
	if _, err := c.Post(ctx, req); err != nil {
		return err
	}
	tried := append(slices.Clone(t.Tried), t.To)
	return sent.Update(ctx, t.TaskID, func(r *ledger.Record) { r.Tried, r.Said = tried, t.Said })
}

// cancelAt tells the old worker of task t that it is canceled (it drops
// the task if it has it, or when it comes back).
func (c *Channel) cancelAt(ctx context.Context, t ledger.Record, why string) {
	_, err := c.Post(ctx, route.Request{To: t.To, Type: envelope.TypeTaskUpdate, TaskID: t.TaskID,
		TaskState: envelope.StateCanceled, Reason: why, ThreadID: t.ThreadID, ReplyTo: t.MessageID})
	if err != nil {
		c.Logger().Warn("cancel not sent to the old worker", "task", t.TaskID, "to", t.To, "err", err)
	}
}
