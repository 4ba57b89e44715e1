package mailbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// receiveLoop hands every delivery to handle until intake (a child of
// ctx) ends; the delivery in hand is handled under ctx. A store error is
// logged and retried after a pause; it never ends the loop.
func (c *Channel) receiveLoop(ctx, intake context.Context) {
	pause := 100 * time.Millisecond
	for {
		d, err := c.inbox.Next(intake)
		if err != nil {
			if intake.Err() != nil || errors.Is(err, store.ErrClosed) {
				return
			}
			c.Logger().Error("mailbox receive failed; retrying", "err", err, "pause", pause)
			t := time.NewTimer(pause)
			select {
			case <-intake.Done():
				t.Stop()
				return
			case <-t.C:
			}
			pause = min(pause*2, 5*time.Second)
			continue
		}
		pause = 100 * time.Millisecond
		if err := c.handle(ctx, d); err != nil && ctx.Err() == nil {
			c.Logger().Error("mailbox message not handled; it stays claimed and comes back on restart",
				"id", d.Message.ID, "from", d.Message.From, "err", err)
		}
	}
}

// handle applies the receive rules to one delivery: allowFrom, the loop
// check, the task lifecycle and callback routing; then it publishes the
// message on the bus and acknowledges it (a task is acknowledged when it
// ends, so a crash mid-task brings it back).
func (c *Channel) handle(ctx context.Context, d *store.Delivery) error {
	m := d.Message
	if !c.IsAllowed(m.From) {
		c.Logger().Warn("mailbox message refused: sender not in allowFrom", "from", m.From, "id", m.ID)
		if m.Type == envelope.TypeTask {
			c.answerTask(ctx, metaOfMessage(m, d.Redelivered), envelope.StateRejected, "unauthorized")
		}
		return c.inbox.Quarantine(ctx, d, "unauthorized: sender "+m.From+" not in allowFrom")
	}
	meta := metaOfMessage(m, d.Redelivered)
	if c.isLoop(m) {
		c.Logger().Warn("mailbox message refused: loop", "from", m.From, "trace", m.Trace)
		return c.inbox.Quarantine(ctx, d, fmt.Sprintf("loop: %s already in trace %v", c.cfg.AgentID, m.Trace))
	}
	c.received.add(meta)
	in := c.toInbound(m, meta)
	switch m.Type {
	case envelope.TypeTask:
		return c.receiveTask(ctx, d, meta, in)
	case envelope.TypeTaskUpdate:
		if done, err := c.receiveCancel(ctx, d, meta, in); done {
			return err
		}
	}
	held := holdsForReply(m)
	if held && d.Redelivered && c.storedReply(ctx, pendingFromMessage(m)) {
		// Answered before a restart (or by another process on this
		// agent's behalf): it was handed over already and is owed nothing.
		return c.inbox.Ack(ctx, d)
	}
	in = c.route(ctx, m, meta, in)
	if held {
		c.replies.hold(d) // acknowledged when answered (see Archive)
	}
	if err := c.Bus().PublishInbound(ctx, in); err != nil {
		if held {
			c.replies.release(m.ID, m.From)
		}
		return err
	}
	c.recordMessage(ctx, store.EventDelivered, m, "")
	if held {
		return nil
	}
	if err := c.inbox.Ack(ctx, d); err != nil {
		return err
	}
	if m.Type == envelope.TypeTaskUpdate && m.Task != nil && m.Task.State.Terminal() {
		c.sweepTask(ctx, m.Task.ID) // the task this agent delegated is over
	}
	return nil
}

// isLoop reports a message that is not a reply but has already passed
// through this agent.
func (c *Channel) isLoop(m *envelope.Message) bool {
	if m.Type == envelope.TypeTaskUpdate || m.ReplyTo != "" {
		return false
	}
	return m.InTrace(c.cfg.AgentID)
}

// toInbound converts a mailbox message into the bus's InboundMessage of
// channel "mailbox", chat id = the sender.
func (c *Channel) toInbound(m *envelope.Message, meta Meta) bus.InboundMessage {
	return bus.InboundMessage{
		Channel:   ChannelName,
		SenderID:  m.From,
		ChatID:    m.From,
		Content:   contentOf(m),
		Media:     filePaths(m),
		Metadata:  WithMeta(nil, meta),
		Timestamp: m.Timestamp.Time,
	}
}

// contentOf is the text the agent reads: the text parts, or for a
// task_update without text a sentence saying what happened.
func contentOf(m *envelope.Message) string {
	text := m.Text()
	if m.Type != envelope.TypeTaskUpdate || m.Task == nil {
		return text
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[task %s %s by %s", m.Task.ID, m.Task.State, m.From)
	if m.Task.Reason != "" {
		fmt.Fprintf(&b, ": %s", m.Task.Reason)
	}
	b.WriteString("]")
	if text != "" {
		b.WriteString("\n")
		b.WriteString(text)
	}
	return b.String()
}

func filePaths(m *envelope.Message) []string {
	var out []string
	for _, p := range m.Content.Parts {
		if p.Type == envelope.PartFile && p.Path != "" {
			out = append(out, p.Path)
		}
	}
	return out
}

// route sends the updates of a task this agent delegated (and answers to
// its request) to the conversation the task began in. The record of tasks
// this agent sent is the only source of a callback: a callback written in
// an incoming message is never trusted.
func (c *Channel) route(ctx context.Context, m *envelope.Message, meta Meta, in bus.InboundMessage) bus.InboundMessage {
	var rec sentTask
	var ok bool
	switch {
	case m.Type == envelope.TypeTaskUpdate && m.Task != nil:
		rec, ok = c.sent.lookup(m.Task.ID, m.From)
		if ok {
			if err := c.sent.setState(ctx, rec.TaskID, m.Task.State); err != nil {
				c.Logger().Warn("record task state", "task", rec.TaskID, "err", err)
			}
		}
	case m.ReplyTo != "":
		rec, ok = c.sent.lookupMessage(m.ReplyTo, m.From)
		if p, answered := c.replies.answered(ctx, m.ReplyTo, m.From); !ok && answered && p.Callback != nil {
			rec, ok = sentTask{Callback: p.Callback}, true
		}
	}
	if !ok || rec.Callback == nil || rec.Callback.Channel == "" {
		return in
	}
	cb := *rec.Callback
	meta.Callback = &cb
	in.Channel = cb.Channel
	in.ChatID = chatIDOf(cb)
	in.SessionKeyOverride = cb.SessionID
	in.Metadata = WithMeta(nil, meta)
	return in
}

// chatIDOf returns the callback's chat id, or the part of nanobot's
// "channel:chat" session id after the channel when only that is given.
func chatIDOf(cb envelope.Callback) string {
	if cb.ChatID != "" {
		return cb.ChatID
	}
	if rest, ok := strings.CutPrefix(cb.SessionID, cb.Channel+":"); ok {
		return rest
	}
	return cb.SessionID
}
