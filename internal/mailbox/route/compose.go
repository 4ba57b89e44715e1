package route

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/stalemate"
)

// ComposeOptions are the settings Compose applies.
type ComposeOptions struct {
	DefaultTTL    int       // hop budget of a new message (default envelope.DefaultTTL)
	MaxThreadHops int       // replies allowed per thread (default 20)
	Now           time.Time // timestamp (default time.Now())
	// Original is the message being replied to, when the request is a
	// reply; nil makes it a new send or forward.
	Original *meta.Meta
	// ReplyTimeout sets reply_by of a request that has none (0: none).
	ReplyTimeout time.Duration
}

// Compose builds the message agent `from` sends for req, with the same
// rules as Channel.Post (see there), without sending it. The command line
// uses it to send on behalf of an agent.
func Compose(from string, req Request, opts ComposeOptions) (*envelope.Message, error) {
	if opts.DefaultTTL <= 0 {
		opts.DefaultTTL = envelope.DefaultTTL
	}
	if opts.MaxThreadHops <= 0 {
		opts.MaxThreadHops = 20
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if err := envelope.ValidateAgentID(from); err != nil {
		return nil, fmt.Errorf("send: from: %w", err)
	}
	if err := envelope.ValidateAgentID(req.To); err != nil {
		return nil, fmt.Errorf("send: to: %w", err)
	}
	if req.Type == "" {
		req.Type = envelope.TypeMessage
	}
	if !req.Type.Valid() {
		return nil, fmt.Errorf("send: unknown type %q (want message, task or task_update)", req.Type)
	}
	if err := envelope.ValidateSubject(req.Subject); err != nil {
		return nil, fmt.Errorf("send: subject: %w", err)
	}
	msg := &envelope.Message{
		ID: envelope.NewID(), From: from, To: req.To,
		Timestamp: envelope.NewTime(opts.Now), Type: req.Type, ReplyTo: req.ReplyTo,
		Subject: req.Subject, ExpectsReply: req.ExpectsReply, Priority: req.Priority,
	}
	if req.Text != "" {
		msg.Content.Parts = append(msg.Content.Parts, envelope.TextPart(req.Text))
	}
	msg.Content.Parts = append(msg.Content.Parts, req.Parts...)
	if err := applyRoute(msg, req, opts); err != nil {
		return nil, err
	}
	if err := applyTask(msg, req); err != nil {
		return nil, err
	}
	applyConversation(msg, req, opts)
	if err := envelope.Validate(msg); err != nil {
		return nil, fmt.Errorf("send: %w", err)
	}
	return msg, nil
}

// applyRoute fills trace, ttl, thread and hop count.
func applyRoute(msg *envelope.Message, req Request, opts ComposeOptions) error {
	if orig := opts.Original; orig != nil {
		msg.Trace = slices.Clone(orig.Trace)
		msg.TTL = orig.TTL
		msg.ThreadID = cmp.Or(orig.ThreadID, req.ThreadID, orig.MessageID, msg.ID)
		msg.ReplyTo = cmp.Or(msg.ReplyTo, orig.MessageID)
		msg.HopCount = orig.HopCount + 1
		if msg.HopCount > opts.MaxThreadHops {
			return fmt.Errorf("reply to %q in thread %s: %w (%d, channels.mailbox.maxThreadHops)",
				msg.To, msg.ThreadID, ErrHopLimit, opts.MaxThreadHops)
		}
		if msg.Type == envelope.TypeMessage { // the chain's progress, for the stalemate rule
			msg.SetExchange(stalemate.Next(orig.Exchange, stalemate.Answers(orig.ExpectsReply, orig.Type), msg.ExpectsReply))
		}
		return nil
	}
	ttl := opts.DefaultTTL
	var trace []string
	if req.Parent != nil {
		trace, ttl = slices.Clone(req.Parent.Trace), req.Parent.TTL
	} else if req.TTL > 0 {
		ttl = req.TTL
	}
	if slices.Contains(trace, msg.To) {
		return fmt.Errorf("send to %q (trace %v): %w", msg.To, trace, ErrLoop)
	}
	if ttl <= 0 {
		return fmt.Errorf("send to %q: %w", msg.To, ErrTTLExhausted)
	}
	msg.TTL = ttl - 1
	msg.Trace = append(trace, msg.From)
	msg.ThreadID = cmp.Or(req.ThreadID, msg.ID)
	return nil
}

// applyConversation fills the task a plain message belongs to (given, or
// that of the message it answers) and when a reply to a request is due.
func applyConversation(msg *envelope.Message, req Request, opts ComposeOptions) {
	if msg.Type == envelope.TypeMessage {
		msg.TaskID = req.TaskID
		if msg.TaskID == "" && opts.Original != nil {
			msg.TaskID = opts.Original.TaskOf()
		}
	}
	if !msg.ExpectsReply || msg.Type == envelope.TypeTask {
		return // a task's result is due by its deadline
	}
	due := req.ReplyBy
	if due.IsZero() && opts.ReplyTimeout > 0 {
		due = opts.Now.Add(opts.ReplyTimeout)
	}
	if !due.IsZero() {
		t := envelope.NewTime(due)
		msg.ReplyBy = &t
	}
}

// applyTask fills the task block of a task or task_update.
func applyTask(msg *envelope.Message, req Request) error {
	switch msg.Type {
	case envelope.TypeTask:
		id := req.TaskID
		if id == "" {
			id = "task_" + msg.ID
		}
		state := req.TaskState
		if state == "" {
			state = envelope.StatePending
		}
		msg.Task = &envelope.Task{ID: id, State: state}
		if !req.Deadline.IsZero() {
			d := envelope.NewTime(req.Deadline)
			msg.Task.Deadline = &d
		}
		msg.ExpectsReply = true
		msg.Callback = req.Callback // for nanobot workers, which echo it
		msg.TaskPath = meta.TreeOf(req.Tree, req.Parent).TaskPath(msg.From, msg.To, msg.Text())
		msg.Task.Budget = budgetOf(req)
	case envelope.TypeTaskUpdate:
		if req.TaskID == "" {
			return fmt.Errorf("send task_update to %q: task id required", msg.To)
		}
		state := req.TaskState
		if state == "" {
			state = envelope.StateCompleted
		}
		msg.Task = &envelope.Task{ID: req.TaskID, State: state, Reason: req.Reason}
		if state.Terminal() && req.Used != nil {
			u, b := *req.Used, req.Budget
			msg.Task.Used = &u
			if b.Bounded() {
				c := *b
				msg.Task.Budget = &c
			}
		}
		if req.Parent != nil && req.Parent.TaskCallback != nil {
			cb := *req.Parent.TaskCallback // echoed for nanobot senders
			msg.Callback = &cb
		}
	}
	return nil
}
