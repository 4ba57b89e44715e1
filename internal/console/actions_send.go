package console

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/mailtrace"
	"github.com/switchboard-dev/switchboard/channels/mailbox/meta"
	"github.com/switchboard-dev/switchboard/channels/mailbox/route"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/tracing"
)

// MetaSentBy is the metadata key the console sets on what it sends in an
// agent's name (a cancel): its value is "operator".
const MetaSentBy = "sent_by"

// send sends a message (or a task) from the operator to one agent. With
// ReplyTo naming a message the operator received from that agent, it is a
// reply to it; naming another message, it joins that message's thread.
func (c *Console) send(ctx context.Context, r ActionRequest) (ActionResult, error) {
	r.To, r.Text = strings.TrimSpace(r.To), strings.TrimSpace(r.Text)
	if r.To == "" || r.Text == "" {
		return ActionResult{}, fmt.Errorf("%w: send needs a recipient and a text", errUsage)
	}
	if err := envelope.ValidateAgentID(r.To); err != nil {
		return ActionResult{}, fmt.Errorf("%w: to: %v", errUsage, err)
	}
	req := route.Request{To: r.To, Text: r.Text, Subject: r.Subject, ExpectsReply: r.ExpectsReply, ReplyTo: r.ReplyTo}
	if r.Task {
		req.Type = envelope.TypeTask
	}
	opts := route.ComposeOptions{DefaultTTL: c.cfg.DefaultTTL, MaxThreadHops: c.cfg.MaxThreadHops,
		Now: c.cfg.Now(), ReplyTimeout: c.cfg.ReplyTimeout}
	parent := ctx // a reply, or a message in a thread, joins the trace of the message it names
	if r.ReplyTo != "" {
		copies, err := c.find(ctx, func(m *envelope.Message) bool { return m.ID == r.ReplyTo })
		if err != nil {
			return ActionResult{}, err
		}
		if len(copies) == 0 {
			return ActionResult{}, fmt.Errorf("%w: reply to %s: no such message", errUsage, r.ReplyTo)
		}
		for _, m := range copies {
			if m.To == Operator && m.From == r.To {
				mt := meta.FromMessage(m, false)
				opts.Original = &mt
			}
		}
		if opts.Original == nil {
			req.ThreadID = cmp.Or(copies[0].ThreadID, copies[0].ID)
		}
		parent = tracing.WithParent(ctx, copies[0].Traceparent, copies[0].Tracestate)
	}
	msg, err := route.Compose(Operator, req, opts)
	if err != nil {
		return ActionResult{}, fmt.Errorf("%w: %v", errUsage, err)
	}
	if err := mailtrace.Deliver(parent, nil, c.cfg.Store, msg); err != nil {
		return ActionResult{}, err
	}
	what := "sent a " + string(msg.Type) + " to " + msg.To
	if opts.Original != nil {
		what = "replied to " + msg.To
	}
	c.record(ctx, what, store.Event{MessageID: msg.ID, ThreadID: msg.ThreadID, TaskID: msg.TaskOf()})
	return ActionResult{Done: what, ID: msg.ID}, nil
}

// cancel ends a task that has not ended: the worker gets a task_update
// "canceled" in its delegator's name (a worker takes cancels from its
// delegator only) and the delegator one in its worker's name (so its
// record of the task ends and the chat it began in hears of it). Both are
// marked sent_by operator, and the audit log says the operator did it.
func (c *Console) cancel(ctx context.Context, r ActionRequest) (ActionResult, error) {
	if r.TaskID == "" {
		return ActionResult{}, fmt.Errorf("%w: cancel needs a task id", errUsage)
	}
	var task *envelope.Message
	var ended envelope.TaskState
	_, err := c.find(ctx, func(m *envelope.Message) bool {
		switch {
		case m.Task == nil || m.Task.ID != r.TaskID:
		case m.Type == envelope.TypeTask && (task == nil || m.Timestamp.Before(task.Timestamp.Time)):
			task = m
		case m.Type == envelope.TypeTaskUpdate && m.Task.State.Terminal():
			ended = m.Task.State
		}
		return false
	})
	if err != nil {
		return ActionResult{}, err
	}
	switch {
	case task == nil:
		return ActionResult{}, fmt.Errorf("%w: cancel: no task %s", errUsage, r.TaskID)
	case ended != "":
		return ActionResult{}, fmt.Errorf("cancel %s: the task has ended already (%s)", r.TaskID, ended)
	}
	reason := cmp.Or(strings.TrimSpace(r.Reason), "canceled by the operator")
	for _, dir := range [][2]string{{task.From, task.To}, {task.To, task.From}} {
		req := route.Request{To: dir[1], Type: envelope.TypeTaskUpdate, TaskID: r.TaskID,
			TaskState: envelope.StateCanceled, Reason: reason, ReplyTo: task.ID,
			ThreadID: cmp.Or(task.ThreadID, task.ID)}
		msg, err := route.Compose(dir[0], req, route.ComposeOptions{DefaultTTL: c.cfg.DefaultTTL, Now: c.cfg.Now()})
		if err != nil {
			return ActionResult{}, err
		}
		msg.Callback = task.Callback
		msg.Metadata = map[string]any{MetaSentBy: Operator}
		// the cancel joins the task's trace
		if err := mailtrace.Deliver(tracing.WithParent(ctx, task.Traceparent, task.Tracestate), nil, c.cfg.Store, msg); err != nil {
			return ActionResult{}, err
		}
		c.record(ctx, "canceled task "+r.TaskID+": told "+dir[1]+" in "+dir[0]+"'s name",
			store.Event{MessageID: msg.ID, ThreadID: msg.ThreadID, TaskID: r.TaskID})
	}
	return ActionResult{Done: "canceled task " + r.TaskID + " (" + task.From + " → " + task.To + ")"}, nil
}

// find returns the stored messages for which keep is true; keep sees
// every message (it may collect by itself and return false).
func (c *Console) find(ctx context.Context, keep func(*envelope.Message) bool) ([]*envelope.Message, error) {
	br, ok := c.cfg.Store.(store.Browser)
	if !ok {
		return nil, fmt.Errorf("this store cannot list stored messages")
	}
	var out []*envelope.Message
	err := br.Browse(ctx, func(s store.Stored) bool {
		if keep(s.Message) {
			out = append(out, s.Message)
		}
		return true
	})
	return out, err
}
