package mailbox

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// A message the store sets aside after maxDeliver hand-outs (the agent
// crashed, or was killed, each time it worked on it) never reaches the
// agent again, so the agent cannot answer it: the channel tells whoever
// waits for it instead, once, as the store reports the set-aside:
//
//	a task            its delegator gets a failed task_update with the
//	                  reason, which it routes to the conversation the
//	                  task began in (its user is told there)
//	a task_update     of a task this agent delegated: the conversation
//	                  the task began in is told, plainly, on its channel
//	a request         (expects_reply) its sender gets a reply saying so
//
// A plain message is only logged (it is among the set-aside messages that
// `switchboard dead` lists). Only a store the channel opens itself
// reports its events here (Options.Backend unset).

// poisonQueue is how many set-asides wait to be told; more are logged.
const poisonQueue = 64

// observePoison is the part of the store's Observer that queues the
// set-asides of this agent's inbox for maxDeliver. It must not block.
func (c *Channel) observePoison(ev store.Event) {
	if ev.Kind != store.EventQuarantined || !store.IsMaxDeliver(ev.Reason) || ev.Agent != c.cfg.AgentID {
		return
	}
	select {
	case c.poisoned <- ev:
	default:
		c.Logger().Error("message set aside and nobody told: too many at once", "id", ev.MessageID, "from", ev.From, "reason", ev.Reason)
	}
}

// tellPoisoned tells, for each queued set-aside, whoever waits for the
// message (see the top of this file), until ctx ends.
func (c *Channel) tellPoisoned(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-c.poisoned:
			c.tellSetAside(ctx, ev)
		}
	}
}

// tellSetAside tells whoever waits for the message ev reports set aside.
func (c *Channel) tellSetAside(ctx context.Context, ev store.Event) {
	m := c.setAsideMessage(ctx, ev)
	if m == nil {
		c.Logger().Warn("message set aside; it could not be read back to tell its sender", "id", ev.MessageID, "from", ev.From, "reason", ev.Reason)
		return
	}
	c.Logger().Warn("message set aside after repeated crashes; telling who waits for it", append(meta.MessageLogAttrs(m), "reason", ev.Reason)...)
	why := fmt.Sprintf("%s stopped before finishing it every time it was handed over: %s; it is set aside "+
		"(switchboard dead %s lists it, switchboard redeliver hands it over again)", c.cfg.AgentID, ev.Reason, c.cfg.AgentID)
	switch {
	case m.Type == envelope.TypeTask && m.Task != nil:
		c.answerTask(ctx, meta.FromMessage(m, true), envelope.StateFailed, "not done: "+why)
	case m.Type == envelope.TypeTaskUpdate && m.Task != nil:
		rec, ok := c.sent.Lookup(m.Task.ID, m.From)
		if !ok || rec.Callback == nil {
			return
		}
		c.tellChat(ctx, rec.Callback, fmt.Sprintf("An update (%s) from %s of task %s could not be handled: %s",
			m.Task.State, m.From, m.Task.ID, why))
	case m.ExpectsReply:
		_, err := c.Post(ctx, route.Request{To: m.From, ReplyTo: m.ID, Text: fmt.Sprintf("Your message %s was not handled: %s", m.ID, why)})
		if err != nil {
			c.Logger().Error("set-aside request's sender not told", "id", m.ID, "to", m.From, "err", err)
		}
	}
}

// setAsideMessage returns the message ev reports set aside, read back
// from the store's set-aside messages (nil when it cannot be).
func (c *Channel) setAsideMessage(ctx context.Context, ev store.Event) *envelope.Message {
	list, err := c.backend.SetAside(ctx, c.cfg.AgentID)
	if err != nil {
		return nil
	}
	for i := len(list) - 1; i >= 0; i-- { // the newest first
		if m := list[i].Message; m != nil && m.ID == ev.MessageID && m.From == ev.From {
			return m
		}
	}
	return nil
}

// tellChat sends text to the conversation cb names, on its channel.
func (c *Channel) tellChat(ctx context.Context, cb *envelope.Callback, text string) {
	out := bus.OutboundMessage{Channel: cb.Channel, ChatID: cb.ChatID, Content: text}
	if err := c.Bus().PublishOutbound(ctx, out); err != nil {
		c.Logger().Error("conversation not told of a set-aside message", "channel", cb.Channel, "chat", cb.ChatID, "err", err)
	}
}
