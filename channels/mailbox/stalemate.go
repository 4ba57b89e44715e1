package mailbox

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
	"github.com/switchboard-dev/switchboard/internal/mailbox/stalemate"
)

// This file ends stalemates (seed 000, package stalemate): a reply that
// carries on an exchange of two agents that makes no progress (the
// replies owed did not shrink across two rounds, or the chain bounced
// channels.mailbox.limits.bounces times without settling one) is not
// handed to the agent. The agent that receives it sets it aside with the
// reason (`switchboard dead` lists it) and fails the exchange's task
// with "stalemate: ...", so that its delegator, and the chat the task
// began in, hears why (or the escalation levels climb from it): its own
// task as any failure; another agent's in its own name as a deadlock is
// broken (the worker is told canceled, the delegator failed). Only the receiver of that reply sees it, and the other agent never
// gets it to answer: the stalemate is ended once.

// stalemateOf returns the reason m is set aside for when it carries a
// stalemate on ("" when it does not), and end, which ends the
// stalemate's task once m is set aside.
// The counts are this agent's own: those of its message m answers (sent
// by this process lately, else looked up in the store when m's claimed
// counts would stop it) counted on by one, so that a sender can neither
// claim a stalemate nor hide one (nanobot writes no counts); only a
// reply to nothing this agent sent is taken by its word, as the start
// of a chain. mt gets them, so that this agent's answer counts on, and
// the task is that of this agent's message, not the sender's word.
func (c *Channel) stalemateOf(ctx context.Context, m *envelope.Message, mt *meta.Meta) (reason string, end func()) {
	if m.Type != envelope.TypeMessage || m.ReplyTo == "" {
		return "", nil
	}
	x, known := c.posted.get(m.ReplyTo)
	known = known && x.To == m.From
	if !known {
		if _, stuck := stalemate.Check(m, m.Exchange(), c.cfg.Limits.Bounces); stuck {
			x, known = c.storedMine(ctx, m)
			if !known {
				mt.Exchange = envelope.Exchange{} // a reply to nothing of ours: a new chain
				return "", nil
			}
		}
	}
	var task string
	if known {
		mt.Exchange = stalemate.Next(x.Exchange, stalemate.Answers(x.ExpectsReply, x.Type), m.ExpectsReply)
		task = x.TaskOf()
	} else {
		mt.Exchange = m.Exchange()
	}
	s, ok := stalemate.Check(m, mt.Exchange, c.cfg.Limits.Bounces)
	if !ok {
		return "", nil
	}
	if known {
		s.TaskID = task
	}
	reason = s.String()
	c.Logger().Warn("stalemate", append(meta.MessageLogAttrs(m), "reason", reason)...)
	return reason, func() { c.endStalemate(ctx, s, reason) }
}

// endStalemate fails the task of stalemate s (see the top of the file).
func (c *Channel) endStalemate(ctx context.Context, s stalemate.Stuck, reason string) {
	if c.failOwnTask(ctx, s, reason) {
		return
	}
	op, err := operator.New(operator.Config{Store: c.Backend(), DefaultTTL: c.cfg.DefaultTTL, Now: c.clk.Now,
		Logger: c.Logger(), Actor: c.cfg.AgentID})
	if err == nil {
		var ended operator.Canceled
		if ended, err = op.EndStalemate(context.WithoutCancel(ctx), s); err == nil {
			c.Logger().Warn("stalemate ended: its task failed", "task", ended.TaskID, "delegator", ended.From, "worker", ended.To)
			return
		}
	}
	if s.TaskID != "" {
		c.Logger().Warn("stalemate: its task not failed", "task", s.TaskID, "err", err)
	}
}

// failOwnTask fails the stalemate's task when this agent works on it,
// in its own name (its delegator hears it as any failure), and records
// the stalemate in the audit log; false when the task is not this
// agent's: another agent's task is ended as the operator ends it.
func (c *Channel) failOwnTask(ctx context.Context, s stalemate.Stuck, reason string) bool {
	if s.TaskID == "" || !c.active.Has(s.TaskID) {
		return false
	}
	c.canceled.add(s.TaskID) // the answer of a turn under way is dropped
	if _, err := c.FinishTask(context.WithoutCancel(ctx), s.TaskID, envelope.StateFailed, "", reason, nil); err != nil {
		c.Logger().Warn("stalemate: its task not failed", "task", s.TaskID, "err", err)
	} else {
		c.Logger().Warn("stalemate ended: its task failed", "task", s.TaskID)
	}
	c.record(ctx, store.Event{Kind: store.EventEscalation, MessageID: s.MessageID, From: c.cfg.AgentID,
		ThreadID: s.ThreadID, TaskID: s.TaskID, Reason: reason})
	return true
}

// storedMine looks up in the store the message m answers, as this agent
// sent it to m's sender.
func (c *Channel) storedMine(ctx context.Context, m *envelope.Message) (meta.Meta, bool) {
	var found *store.Skimmed
	err := c.backend.Skim(ctx, []string{m.From}, func(sk store.Skimmed) bool {
		if sk.Summary.ID == m.ReplyTo && sk.Summary.From == c.cfg.AgentID {
			found = &sk
		}
		return found == nil
	})
	if err != nil || found == nil {
		if err != nil && !errors.Is(err, store.ErrNotSupported) {
			c.Logger().Warn("look up the message a reply answers", "id", m.ReplyTo, "err", err)
		}
		return meta.Meta{}, false
	}
	st, err := c.backend.Fetch(ctx, *found)
	if err != nil || st.Message.Type != envelope.TypeMessage {
		return meta.Meta{}, false
	}
	return meta.FromMessage(st.Message, false), true
}

// remember keeps what a plain message this agent sent carries of its
// exchange (nothing else), so that a reply to it from an agent that
// writes no counts is counted on (stalemateOf).
func (r *recentMessages) remember(m *envelope.Message) {
	if m.Type == envelope.TypeMessage {
		r.add(meta.Meta{MessageID: m.ID, From: m.From, To: m.To, Type: m.Type, TaskID: m.TaskID,
			ExpectsReply: m.ExpectsReply, Exchange: m.Exchange()})
	}
}
