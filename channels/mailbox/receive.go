package mailbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/tracing"
)

// This file is the whole receive path. receiveLoop takes each delivery
// from the inbox and handle runs it through one pipeline:
//
//	admit     allowFrom, the loop rule (route.IsLoop), then the sender's
//	          rate (guard.go); a refused message is set aside with the
//	          reason (a refused task is answered rejected first)
//	classify  by type, one handler per kind, each deciding what the agent
//	          is handed and whether the delivery is held:
//	            task         onTask    (task.go)    accept or reject
//	            task_update  onUpdate  (update.go)  a cancel, or an update
//	                                                of a task we delegated
//	            message      onMessage (message.go) plain, request, reply
//	bus       the verdict's InboundMessage is published (routed to the
//	          conversation a delegated task began in, for its updates),
//	          framed for the agent (frame: its kind, its note)
//	ack       the delivery is acknowledged when the agent is done with it
//	          (bus.InboundMessage.Done, after its turn and answer), or when
//	          it ends if it is held: a task (FinishTask), a request when it
//	          is answered (Post); at once when nothing goes to the agent

// verdict is what a handler decides about one delivery.
type verdict struct {
	// publish hands in to the agent.
	publish bool
	in      bus.InboundMessage
	// hold keeps the delivery claimed (not acknowledged) after publishing.
	hold bool
	// undo reverses the handler's bookkeeping when publishing fails.
	undo func()
	// sweep is the task whose messages are archived once acknowledged.
	sweep string
}

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
			t := c.clk.NewTimer(pause)
			select {
			case <-intake.Done():
				t.Stop()
				return
			case <-t.C():
			}
			pause = min(pause*2, 5*time.Second)
			continue
		}
		pause = 100 * time.Millisecond
		if err := c.handle(ctx, d); err != nil && ctx.Err() == nil {
			c.Logger().Error("mailbox message not handled; it stays claimed and comes back on restart",
				append(meta.MessageLogAttrs(d.Message), "err", err)...)
		}
	}
}

// handle runs one delivery through the receive pipeline (see the top of
// this file).
func (c *Channel) handle(ctx context.Context, d *store.Delivery) (err error) {
	m := d.Message
	ctx, end := c.receiveSpan(ctx, m, d.Redelivered)
	defer func() { end(err) }()
	mt := meta.FromMessage(m, d.Redelivered)

	// admit
	if reason := c.refusal(m); reason != "" {
		c.Logger().Warn("mailbox message refused", append(meta.MessageLogAttrs(m), "reason", reason)...)
		if m.Type == envelope.TypeTask && m.Task != nil {
			answer := reason // a loop or a rate limit: the delegator learns why
			if strings.HasPrefix(reason, "unauthorized") {
				answer = "unauthorized" // without naming the allowFrom list
			}
			c.answerTask(ctx, mt, envelope.StateRejected, answer)
		}
		return c.inbox.Quarantine(ctx, d, reason)
	}
	c.received.add(mt)
	in := c.toInbound(m, mt)
	in.TraceContext = tracing.Inject(ctx)

	// classify: one handler per kind
	var v verdict
	switch m.Type {
	case envelope.TypeTask:
		v, err = c.onTask(ctx, d, mt, in)
	case envelope.TypeTaskUpdate:
		v, err = c.onUpdate(ctx, d, mt, in)
	default:
		v, err = c.onMessage(ctx, d, mt, in)
	}
	if err != nil {
		return err
	}

	// bus
	if v.publish {
		recorded := make(chan struct{}) // the ack's audit entry comes after "delivered"
		defer close(recorded)
		if !v.hold {
			v.in.Ack = c.ackWhenDone(d, v.sweep, recorded)
		}
		if err := c.Bus().PublishInbound(ctx, v.in); err != nil {
			if v.undo != nil {
				v.undo()
			}
			return err
		}
		if meter := c.meterOf(); meter != nil {
			meter.Delivered(m, d.Redelivered, c.clk.Now())
		}
		c.recordMessage(ctx, store.EventDelivered, m, "")
		return nil // acknowledged when the agent is done with it, or when it ends (held)
	}

	// ack: nothing for the agent (a duplicate, a rejected task)
	return c.finish(ctx, d, v.sweep)
}

// finish acknowledges d and archives the messages of task sweep, if any.
// The acknowledgement is pipelined (store.Inbox.AckPipelined): the receive path
// goes on while the store makes it durable with others in one group
// commit; one that a machine crash undoes only brings the message back.
func (c *Channel) finish(ctx context.Context, d *store.Delivery, sweep string) error {
	id, from := d.Message.ID, d.Message.From
	err := c.inbox.AckPipelined(ctx, d, func(err error) {
		if err != nil {
			c.Logger().Warn("acknowledgement not made durable; after a machine crash the message may come back",
				"id", id, "from", from, "err", err)
		}
	})
	if err != nil {
		return err
	}
	if sweep != "" {
		ledger.Sweep(ctx, c.inbox, sweep, c.Logger())
	}
	return nil
}

// ackWhenDone is the bus.InboundMessage.Ack of delivery d: the agent says
// it has finished with the message, and only then is it acknowledged (so a
// crash or a stop mid-turn brings it back). A second call does nothing.
// It waits for recorded, closed once the receive path is done with d.
func (c *Channel) ackWhenDone(d *store.Delivery, sweep string, recorded <-chan struct{}) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			<-recorded // the receive path has logged the hand-over
			ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
			defer cancel()
			if err := c.finish(ctx, d, sweep); err != nil {
				c.Logger().Warn("handled message not acknowledged; it comes back on restart",
					append(meta.MessageLogAttrs(d.Message), "err", err)...)
			}
		})
	}
}

// refusal returns why m is not admitted ("" when it is): a sender outside
// allowFrom, a message (not a reply) that already passed through this
// agent, or a sender over its rate (channels.mailbox.limits.perSender).
func (c *Channel) refusal(m *envelope.Message) string {
	if !c.IsAllowed(m.From) {
		return "unauthorized: sender " + m.From + " not in allowFrom"
	}
	if route.IsLoop(m, c.cfg.AgentID) {
		return route.LoopReason(c.cfg.AgentID, m.Trace)
	}
	return c.receiveRefusal(m)
}

// toInbound converts a mailbox message into the bus's InboundMessage of
// channel "mailbox", chat id = the sender.
func (c *Channel) toInbound(m *envelope.Message, mt meta.Meta) bus.InboundMessage {
	return frame(bus.InboundMessage{
		Channel:     ChannelName,
		SenderID:    m.From,
		ChatID:      m.From,
		Content:     contentOf(m),
		Media:       filePaths(m),
		Timestamp:   m.Timestamp.Time,
		ID:          m.ID,
		Redelivered: mt.Redelivered,
	}, mt)
}

// frame attaches mt to in (meta.With), and says in the bus's own words
// what in asks of the agent (bus.Kind, as meta.Classify decides it), how
// the model is shown it (bus.Note) and its thread: the agent loop reads
// those, never the metadata. Every message the channel publishes is
// framed once its content and its conversation are final (see routed).
func frame(in bus.InboundMessage, mt meta.Meta) bus.InboundMessage {
	in.Metadata = meta.With(nil, mt)
	in.Kind = kinds[mt.Kind()]
	in.Note = noteOf(in, &mt)
	in.Thread = mt.ThreadID
	return in
}

// kinds are the bus's kinds of meta's.
var kinds = map[meta.Kind]bus.Kind{meta.KindChat: bus.KindChat, meta.KindTask: bus.KindTask,
	meta.KindMessage: bus.KindMessage, meta.KindRecordOnly: bus.KindRecord}

// noteOf is how the model is shown the mailbox message in: its type, its
// sender, the task it is about and its text.
func noteOf(in bus.InboundMessage, mt *meta.Meta) *bus.Note {
	n := &bus.Note{Type: string(mt.Type), From: mt.From, Text: textOf(in, mt), TaskID: mt.TaskOf()}
	if n.From == "" {
		n.From = in.SenderID
	}
	if mt.Type == envelope.TypeTaskUpdate {
		n.TaskID = ""
		if mt.Task != nil {
			n.TaskID, n.State, n.Reason = mt.Task.ID, string(mt.Task.State), mt.Task.Reason
		}
	}
	return n
}

// textOf is the text of a mailbox message: its parts (data as JSON, files
// as "file: <path>"), or the inbound content when there are none.
func textOf(in bus.InboundMessage, mt *meta.Meta) string {
	if len(mt.Parts) == 0 {
		if mt.Type == envelope.TypeTaskUpdate {
			return "" // the channel's content only restates the header
		}
		return in.Content
	}
	var lines []string
	for _, p := range mt.Parts {
		switch p.Type {
		case envelope.PartText:
			if p.Text != "" {
				lines = append(lines, p.Text)
			}
		case envelope.PartData:
			if data, err := json.Marshal(p.Data); err == nil {
				lines = append(lines, "data: "+string(data))
			}
		case envelope.PartFile:
			lines = append(lines, "file: "+p.Path)
		}
	}
	return strings.Join(lines, "\n")
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
