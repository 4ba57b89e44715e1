package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// convFlags are the conversation flags of send.
type convFlags struct {
	subject      string
	priority     int
	expectsReply bool
	replyBy      string
	forTask      string
}

func (c *convFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&c.subject, "subject", "", "kebab-case topic, such as missing-test")
	fl.IntVar(&c.priority, "priority", 0, "0 (default) to 3: pending messages of higher priority are taken first")
	fl.BoolVar(&c.expectsReply, "expects-reply", false, "make the message a request: the receiver owes a reply (see pending)")
	fl.StringVar(&c.replyBy, "reply-by", "", "with --expects-reply: when the reply is due, an RFC 3339 time or a duration from now (default: channels.mailbox.replyTimeout)")
	fl.StringVar(&c.forTask, "for-task", "", "message only: the task the message belongs to (pending --task, task sweeps)")
}

// apply checks the flags and sets them on req. Every error is a usage
// error.
func (c convFlags) apply(req *mailbox.Request, now time.Time) error {
	if err := envelope.ValidateSubject(c.subject); err != nil {
		return usagef("--subject: %v", err)
	}
	if c.priority < 0 || c.priority > 3 {
		return usagef("--priority %d: want 0 to 3", c.priority)
	}
	if c.replyBy != "" && !c.expectsReply {
		return usagef("--reply-by needs --expects-reply")
	}
	if c.forTask != "" && req.Type != envelope.TypeMessage {
		return usagef("--for-task needs --type message (a task or task_update names its task with --task-id)")
	}
	if c.replyBy != "" {
		due, err := parseDeadline(c.replyBy, now)
		if err != nil {
			return usagef("--reply-by: %v", err)
		}
		req.ReplyBy = due
	}
	req.Subject, req.Priority = c.subject, c.priority
	if c.forTask != "" {
		req.TaskID = c.forTask
	}
	req.ExpectsReply = req.ExpectsReply || c.expectsReply
	return nil
}

// composeOptions are the options of a send from the command line: the
// configured budgets, and, when --reply-to names a message that the
// sender received from the target, that message, so that the answer is a
// reply (its thread, trace and hop count) rather than a new message.
// When --reply-to names another message, the answer joins its thread.
func (a *app) composeOptions(ctx context.Context, ms *mailboxStore, s *settings, from string, req *mailbox.Request, now time.Time) (mailbox.ComposeOptions, error) {
	opts := mailbox.ComposeOptions{DefaultTTL: s.mailbox.DefaultTTL, MaxThreadHops: s.mailbox.MaxThreadHops,
		Now: now, ReplyTimeout: seconds(s.mailbox.ReplyTimeout)}
	if req.ReplyTo == "" {
		return opts, nil
	}
	br, err := ms.browser("send --reply-to")
	if err != nil {
		return opts, err
	}
	var found, received *envelope.Message
	err = br.Browse(ctx, func(m store.Stored) bool {
		if m.Message.ID != req.ReplyTo {
			return true
		}
		if found == nil || m.Message.Timestamp.Before(found.Timestamp.Time) {
			found = m.Message
		}
		if m.Message.To == from && m.Message.From == req.To {
			received = m.Message
			return false
		}
		return true
	})
	if err != nil {
		return opts, fmt.Errorf("look up --reply-to %s: %w", req.ReplyTo, err)
	}
	switch {
	case received != nil:
		meta := mailbox.MetaOfMessage(received)
		opts.Original = &meta
	case found != nil && req.ThreadID == "":
		req.ThreadID = found.ThreadID
		if req.ThreadID == "" {
			req.ThreadID = found.ID
		}
	}
	return opts, nil
}

// composeAll composes the message from `from` for each agent target
// names, before any is delivered (so that a bad one writes nothing); the
// copies share one thread.
func (a *app) composeAll(ctx context.Context, ms *mailboxStore, s *settings, from, target string, req mailbox.Request, now time.Time) ([]*envelope.Message, error) {
	t, err := mailbox.ParseTarget(target)
	if err != nil {
		return nil, usagef("--to: %v", err)
	}
	to, err := mailbox.Resolve(ctx, ms.be, from, t, mailbox.ResolveOptions{Now: now,
		OfflineAfter: seconds(s.mailbox.OfflineAfter), MaxFanout: s.mailbox.MaxFanout,
		HasInbox: ms.hasInbox(ctx)})
	if err != nil {
		return nil, err
	}
	if len(to) > 1 && req.Type == envelope.TypeTask && req.TaskID != "" {
		return nil, usagef("--task-id names one task, for one agent; --to %s names %d (leave --task-id out)", target, len(to))
	}
	var msgs []*envelope.Message
	for _, rcpt := range to {
		r := req
		r.To = rcpt
		if len(msgs) > 0 && r.ThreadID == "" {
			r.ThreadID = msgs[0].ThreadID
		}
		opts, err := a.composeOptions(ctx, ms, s, from, &r, now)
		if err != nil {
			return nil, err
		}
		msg, err := mailbox.Compose(from, r, opts)
		if err != nil {
			return nil, asUsage(err)
		}
		msgs = append(msgs, msg)
	}
	return msgs, nil
}

// hasInbox is ResolveOptions.HasInbox for the store: whether an agent
// has an inbox folder (filesystem), or messages stored for it (a store
// that can list them; nil: none has).
func (ms *mailboxStore) hasInbox(ctx context.Context) func(agent string) bool {
	if ms.fs != nil {
		return func(agent string) bool { _, ok, _ := ms.fs.HasInbox(agent); return ok }
	}
	br, ok := ms.be.(store.Browser)
	if !ok {
		return nil
	}
	return func(agent string) bool {
		found := false
		_ = br.Browse(ctx, func(st store.Stored) bool {
			found = st.Agent == agent
			return !found
		})
		return found
	}
}
