package mailbox

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
	"github.com/switchboard-dev/switchboard/internal/mailbox/stalemate"
)

// This file ends stalemates (seed 000, package stalemate): a reply that
// carries on an exchange of two agents that makes no progress (the
// replies owed did not shrink across two rounds, or the chain bounced
// channels.mailbox.limits.bounces times without settling one) is not
// handed to the agent. The agent that receives it sets it aside with the
// reason (`switchboard dead` lists it) and fails the exchange's task, in
// its own name, as a deadlock is broken: the task's worker is told
// canceled and its delegator failed with "stalemate: ...", so that the
// chat the task began in hears why (or the escalation levels climb from
// it). Only the receiver of that reply sees it, and the other agent never
// gets it to answer: the stalemate is ended once.

// stalemateOf returns the reason m is set aside for when it carries a
// stalemate on ("" when it does not), after ending the stalemate's task.
func (c *Channel) stalemateOf(ctx context.Context, m *envelope.Message) string {
	s, ok := stalemate.Check(m, c.cfg.Limits.Bounces)
	if !ok {
		return ""
	}
	reason := s.String()
	c.Logger().Warn("stalemate", append(meta.MessageLogAttrs(m), "reason", reason)...)
	op, err := operator.New(operator.Config{Store: c.Backend(), DefaultTTL: c.cfg.DefaultTTL, Now: c.clk.Now,
		Logger: c.Logger(), Actor: c.cfg.AgentID})
	if err == nil {
		var ended operator.Canceled
		if ended, err = op.EndStalemate(context.WithoutCancel(ctx), s); err == nil {
			c.Logger().Warn("stalemate ended: its task failed", "task", ended.TaskID, "delegator", ended.From, "worker", ended.To)
			return reason
		}
	}
	if s.TaskID != "" {
		c.Logger().Warn("stalemate: its task not failed", "task", s.TaskID, "err", err)
	}
	return reason
}
