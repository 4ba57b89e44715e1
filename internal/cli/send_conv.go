package cli

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
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
func (c convFlags) apply(req *route.Request, now time.Time) error {
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
// sender received from the target (one of copies, the stored copies of
// that message), that message, so that the answer is a reply (its
// thread, trace and hop count) rather than a new message. When --reply-to
// names another message, the answer joins its thread.
func composeOptions(s *settings, from string, req *route.Request, copies []*envelope.Message, now time.Time) route.ComposeOptions {
	opts := route.ComposeOptions{DefaultTTL: s.mailbox.DefaultTTL, MaxThreadHops: s.mailbox.MaxThreadHops,
		Now: now, ReplyTimeout: seconds(s.mailbox.ReplyTimeout)}
	var found *envelope.Message
	for _, m := range copies {
		if m.To == from && m.From == req.To {
			mt := meta.FromMessage(m, false)
			opts.Original = &mt
			return opts
		}
		if found == nil || m.Timestamp.Before(found.Timestamp.Time) {
			found = m
		}
	}
	if found != nil && req.ThreadID == "" {
		req.ThreadID = cmp.Or(found.ThreadID, found.ID)
	}
	return opts
}

// replyToCopies returns every stored copy of message id (--reply-to),
// read from the store once for all the recipients of a send.
func replyToCopies(ctx context.Context, ms *mailboxStore, id string) ([]*envelope.Message, error) {
	if id == "" {
		return nil, nil
	}
	br, err := ms.browser("send --reply-to")
	if err != nil {
		return nil, err
	}
	var copies []*envelope.Message
	err = br.Browse(ctx, func(m store.Stored) bool {
		if m.Message.ID == id {
			copies = append(copies, m.Message)
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("look up --reply-to %s: %w", id, err)
	}
	return copies, nil
}

// composeAll composes the message from `from` for each agent target
// names, before any is delivered (so that a bad one writes nothing); the
// copies share one thread. replies[i] says that msgs[i] answers a message
// its recipient sent `from` (a reply, which the rate limits do not count).
func (a *app) composeAll(ctx context.Context, ms *mailboxStore, s *settings, from, target string, req route.Request, now time.Time) (msgs []*envelope.Message, replies []bool, err error) {
	t, err := route.ParseTarget(target)
	if err != nil {
		return nil, nil, usagef("--to: %v", err)
	}
	to, err := route.Resolve(ctx, ms.be, from, t, route.ResolveOptions{Now: now,
		OfflineAfter: seconds(s.mailbox.OfflineAfter), MaxFanout: s.mailbox.MaxFanout,
		HasInbox: ms.hasInbox(ctx)})
	if err != nil {
		return nil, nil, err
	}
	if len(to) > 1 && req.Type == envelope.TypeTask && req.TaskID != "" {
		return nil, nil, usagef("--task-id names one task, for one agent; --to %s names %d (leave --task-id out)", target, len(to))
	}
	copies, err := replyToCopies(ctx, ms, req.ReplyTo)
	if err != nil {
		return nil, nil, err
	}
	for _, rcpt := range to {
		r := req
		r.To = rcpt
		if len(msgs) > 0 && r.ThreadID == "" {
			r.ThreadID = msgs[0].ThreadID
		}
		opts := composeOptions(s, from, &r, copies, now)
		msg, err := route.Compose(from, r, opts)
		if err != nil {
			return nil, nil, asUsage(err)
		}
		msgs, replies = append(msgs, msg), append(replies, opts.Original != nil)
	}
	return msgs, replies, nil
}

// hasInbox is ResolveOptions.HasInbox for the store: whether an agent
// has an inbox (store.CanFindInbox, as the filesystem store can), or
// messages stored for it (a store that can list them; nil: none has).
func (m *mailboxStore) hasInbox(ctx context.Context) func(agent string) bool {
	if m.be.Has(store.CanFindInbox) {
		return func(agent string) bool { ok, _ := m.be.HasInbox(agent); return ok }
	}
	if !m.be.Has(store.CanBrowse) {
		return nil
	}
	return func(agent string) bool {
		found := false
		_ = m.be.Browse(ctx, func(st store.Stored) bool {
			found = st.Agent == agent
			return !found
		})
		return found
	}
}
