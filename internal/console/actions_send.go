package console

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/mailtrace"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/tracing"
)

// MetaSentBy is the metadata key the console sets on what it sends in an
// agent's name (a cancel): its value is "operator".
const MetaSentBy = operator.MetaSentBy

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
	if c.cfg.Key != nil {
		if err := envelope.Sign(msg, c.cfg.Key); err != nil {
			return ActionResult{}, err
		}
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

// find returns the stored messages for which keep is true; keep sees
// every message (it may collect by itself and return false).
func (c *Console) find(ctx context.Context, keep func(*envelope.Message) bool) ([]*envelope.Message, error) {
	if !c.cfg.Store.Has(store.CanBrowse) {
		return nil, fmt.Errorf("this store cannot list stored messages")
	}
	var out []*envelope.Message
	err := c.cfg.Store.Browse(ctx, func(s store.Stored) bool {
		if keep(s.Message) {
			out = append(out, s.Message)
		}
		return true
	})
	return out, err
}
