package mailbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
	"github.com/switchboard-dev/switchboard/internal/mailbox/mailtrace"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// This file holds what bounds and watches the channel's traffic. It
// connects the guard rails of package limits to the channel: sends are
// checked in Post (allowSend), receipts in the receive path's admit step
// (refusal), and failures counted toward the recipient's breaker here.
// Then what watches: the Meter that metrics hang on, the audit log, the
// trace spans of sends and receipts; and the retention bounds on what the
// agent keeps of its handled messages.

// limiter returns the channel's guard, nil before the first Start.
func (c *Channel) limiter() *limits.Guard {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.guard
}

// allowSend applies the send limits to msg (see limits.Guard.AllowSend).
func (c *Channel) allowSend(msg *envelope.Message) error {
	if g := c.limiter(); g != nil {
		return g.AllowSend(msg.To, msg.Type)
	}
	return nil
}

// receiveRefusal returns why message m is set aside by the perSender
// limit ("" to take it). A copy an operator put back (switchboard
// redeliver: metadata redelivered_from) is the operator's decision and is
// taken: judged by its sender's original timestamp, it would be set aside
// again at once, for ever.
func (c *Channel) receiveRefusal(m *envelope.Message) string {
	if _, redelivered := m.Metadata[store.MetaRedeliveredFrom]; redelivered {
		return ""
	}
	if g := c.limiter(); g != nil {
		return g.AllowReceive(m)
	}
	return ""
}

// deliveryFailed counts a failed delivery toward the recipient's breaker.
func (c *Channel) deliveryFailed(ctx context.Context, to string, err error) {
	if g := c.limiter(); g != nil {
		g.Failure(ctx, to, fmt.Sprintf("delivery failed: %v", err))
	}
}

// taskRejected counts a task the recipient rejected toward its breaker
// (an update mt of a task this agent delegated to it).
func (c *Channel) taskRejected(ctx context.Context, mt meta.Meta) {
	if g := c.limiter(); g != nil && mt.Task != nil && mt.Task.State == envelope.StateRejected {
		g.Failure(ctx, mt.From, "task rejected: "+mt.Task.Reason)
	}
}

// LimitStats counts what the guard rails refused since the channel
// started (zero before Start), for metrics.
func (c *Channel) LimitStats() limits.Stats {
	if g := c.limiter(); g != nil {
		return g.Stats()
	}
	return limits.Stats{}
}

// OpenBreakers returns the circuit breakers of this agent open now, by
// recipient.
func (c *Channel) OpenBreakers() map[string]limits.Open {
	if g := c.limiter(); g != nil {
		return g.Open()
	}
	return nil
}

// Meter is told what the channel does with messages; metrics hang on it
// (package observe/metrics adapts it to Prometheus). Its methods are
// called synchronously on the channel's own paths and must not block.
type Meter interface {
	// Event is called with each event of the store the channel opened
	// (store.Event: claimed, processed, refused, quarantined, duplicate,
	// ...) and each one the channel records (delivered, swept, overdue).
	Event(ev store.Event)
	// Sent is called with each message the channel stored in a
	// recipient's inbox.
	Sent(m *envelope.Message)
	// Delivered is called with each message handed to the agent
	// (published on the bus) at time at; redelivered is set when it may
	// have been handed out before (a claim recovered after a crash).
	Delivered(m *envelope.Message, redelivered bool, at time.Time)
}

// SetMeter installs m (nil: none). It takes effect for the store's events
// when the channel opens its store in Start, so call it before.
func (c *Channel) SetMeter(m Meter) {
	c.mu.Lock()
	c.meter = m
	c.mu.Unlock()
}

// meterOf returns the installed Meter, nil when there is none.
func (c *Channel) meterOf() Meter {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.meter
}

// storeObserver is what the store the channel opens reports its events
// to: the Observer of Options, then the Meter, then the channel itself
// (a message set aside for maxDeliver is told to who waits for it).
func (c *Channel) storeObserver() store.Observer {
	obs, m := c.observer, c.meter
	return func(ev store.Event) {
		if obs != nil {
			obs(ev)
		}
		if m != nil {
			m.Event(ev)
		}
		c.observePoison(ev)
	}
}

// record reports ev to the store's audit log, when it keeps one. The
// audit log never stops the mailbox: a failure is logged.
func (c *Channel) record(ctx context.Context, ev store.Event) {
	if ev.Time.IsZero() {
		ev.Time = c.clk.Now()
	}
	if ev.Agent == "" {
		ev.Agent = c.cfg.AgentID
	}
	if err := c.backend.Record(context.WithoutCancel(ctx), ev); err != nil && !errors.Is(err, store.ErrNotSupported) {
		c.Logger().Warn("audit log not written", "kind", ev.Kind, "id", ev.MessageID, "err", err)
	}
}

// recordMessage reports an event about message m.
func (c *Channel) recordMessage(ctx context.Context, kind store.EventKind, m *envelope.Message, reason string) {
	c.record(ctx, store.Event{Kind: kind, MessageID: m.ID, From: m.From, ThreadID: m.ThreadID,
		TaskID: m.TaskOf(), Reason: reason})
}

// RecordUsage records what one of this agent's turns (or task
// judgements) cost as an EventUsage entry of the audit log, when the
// store keeps one: Model, InputTokens, OutputTokens (CachedTokens and
// CacheWriteTokens, the part of them read from and written to the
// provider's prompt cache), and the MessageID,
// ThreadID and TaskID of the message the turn answered. Agent and Time
// are filled in. A failure is logged; it never stops the agent.
func (c *Channel) RecordUsage(ctx context.Context, ev store.Event) {
	if c.Backend() == nil {
		return
	}
	ev.Kind = store.EventUsage
	c.record(ctx, ev)
}

// receiveSpan starts the span of m taken from this agent's inbox, on the
// channel's clock, a child of the span that sent it when m carries its
// trace context (a message of nanobot's starts a new trace).
func (c *Channel) receiveSpan(ctx context.Context, m *envelope.Message, redelivered bool) (context.Context, mailtrace.End) {
	return mailtrace.Receive(ctx, c.clk, c.cfg.AgentID, m, redelivered)
}

// sendSpan starts the span of sending msg, on the channel's clock, and
// writes its trace context into msg, so that the receiver's work joins
// this trace.
func (c *Channel) sendSpan(ctx context.Context, msg *envelope.Message) (context.Context, mailtrace.End) {
	return mailtrace.Send(ctx, c.clk, msg)
}

// pruneLoop applies the retention bounds to this agent's handled and
// archived messages, and removes the approvals no agent waits for any
// more, at start and then every pruneInterval.
func (c *Channel) pruneLoop(ctx context.Context, t clock.Ticker) {
	defer t.Stop()
	for {
		c.pruneMessages(ctx)
		c.pruneApprovals(ctx)
		c.sweepArtifacts(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
	}
}

// pruneMessages applies the retention bounds, when the inbox can.
func (c *Channel) pruneMessages(ctx context.Context) {
	rep, err := c.inbox.Prune(ctx, c.cfg.Retention())
	if errors.Is(err, store.ErrNotSupported) {
		return
	}
	if err != nil && ctx.Err() == nil {
		c.Logger().Warn("retention not applied", "err", err)
	} else if rep.Files > 0 {
		c.Logger().Info("old messages removed by retention", "files", rep.Files, "bytes", rep.Bytes)
	}
}
