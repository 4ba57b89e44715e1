package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// defaultInboxLimit is how many messages inbox shows in its table unless
// --limit says otherwise.
const defaultInboxLimit = 50

func (a *app) inboxCommand() *cobra.Command {
	var (
		jsonOut bool
		limit   int
		kinds   []string
		since   string
	)
	cmd := &cobra.Command{
		Use:   "inbox AGENT [--kind K,...] [--since D] [--json]",
		Short: "List AGENT's pending messages, oldest first (read only)",
		Long: `Inbox lists the messages waiting in AGENT's inbox, oldest first, without
claiming or changing anything. A file that cannot be read is listed with
the reason (the receiver will set it aside). The table shows the oldest
50 and says how many more wait (--limit changes that, 0 shows all);
--json prints every message unless --limit is given.

--kind keeps the messages of these kinds (seed 000's: request, a message
that expects a reply; response, one that answers another (reply_to) or a
task_update; notify, any other); --since keeps those sent at or after a
time (RFC 3339) or a duration before now (10m, 2h), by their timestamp.
With either, files that cannot be read are not listed.

It works on the configured store (channels.mailbox.backend; --root names a
mailbox folder instead). On NATS the inbox is every message its receiver
has not acknowledged yet: pending, and claimed by a running receiver.`,
		Example: `  switchboard inbox coder
  switchboard inbox coder --limit 0
  switchboard inbox coder --kind request --since 1h
  switchboard inbox coder --json | jq -r .id`,
		Args:              exactArgs("agent"),
		ValidArgsFunction: a.completeAgentArg,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			if err := envelope.ValidateAgentID(args[0]); err != nil {
				return asUsage(err)
			}
			if limit < 0 {
				return usagef("--limit %d: want 0 (all) or more", limit)
			}
			if !cmd.Flags().Changed("limit") && jsonOut {
				limit = 0
			}
			filter, err := newInboxFilter(kinds, since, time.Now())
			if err != nil {
				return err
			}
			return a.inbox(cmd, args[0], jsonOut, limit, filter)
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per message")
	cmd.Flags().IntVar(&limit, "limit", defaultInboxLimit, "show at most this many messages, oldest first (0: all; --json alone prints all)")
	cmd.Flags().StringSliceVar(&kinds, "kind", nil, "only messages of these kinds: request, response, notify (repeat or separate with commas)")
	cmd.Flags().StringVar(&since, "since", "", "only messages sent at or after: an RFC 3339 time or a duration before now")
	return cmd
}

func (a *app) inbox(cmd *cobra.Command, agent string, jsonOut bool, limit int, filter inboxFilter) error {
	m, s, err := a.openMailbox(true)
	if err != nil {
		return err
	}
	defer m.close()
	who := a.senders(cmd.Context(), m.be, s)
	var lines []messageLine
	var writeErr error
	shown, total := 0, -1 // total: how many wait, when more than shown (-1: unknown yet)
	// A store that lists its inbox itself (the folder store) stops at the
	// limit and counts the rest; the listing through Browse (every message
	// not handled yet, pending or claimed: a broker's inbox holds a
	// message until its receiver acknowledges it) goes on counting. With a
	// filter, every listing counts the matches past the limit (Depth
	// counts every message).
	lists, more := m.be != nil && m.be.Has(store.CanListPending), 0
	if m.be != nil {
		err = m.be.Pending(cmd.Context(), agent, func(name string, msg *envelope.Message, err error) bool {
			if !filter.keep(msg) {
				return true
			}
			if limit > 0 && shown == limit {
				more++
				return !lists || filter.active()
			}
			shown++
			line := newMessageLine(name, msg, err)
			if msg != nil {
				line = line.checked(who.check(msg))
			}
			if jsonOut {
				writeErr = writeJSON(a.env.Stdout, line)
				return writeErr == nil
			}
			lines = append(lines, line)
			return true
		})
		if (!lists || filter.active()) && more > 0 {
			total = shown + more
		}
	}
	if errors.Is(err, store.ErrNotSupported) {
		return m.lacks("inbox", "cannot list stored messages")
	}
	if errors.Is(err, fs.ErrNotExist) {
		err = nil // no inbox yet: nothing pending
	}
	if err = errors.Join(err, writeErr); err != nil || jsonOut {
		return err
	}
	if len(lines) == 0 {
		what := "no messages pending"
		if filter.active() {
			what = "no messages pending that match"
		}
		_, err := fmt.Fprintf(a.env.Stdout, "%s for %s\n", what, agent)
		return err
	}
	now := time.Now()
	w := a.table()
	row(w, "AGE", "FROM", "TYPE", "ID", "TEXT")
	for _, l := range lines {
		if l.Message == nil {
			row(w, "-", "-", "unreadable", l.File, l.Error)
			continue
		}
		m := l.Message
		from := m.From
		if l.Verified != nil && !*l.Verified {
			from += " " + unverifiedMark
		}
		row(w, ago(now, m.Timestamp.Time), from, kindLabel(m.Type, m.Task), m.ID, clip(envelope.OneLine(m.Content.Parts), 60))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if total < 0 && lists && !filter.active() && len(lines) == limit {
		total = countInbox(cmd.Context(), m, agent)
	}
	if more := total - len(lines); more > 0 {
		_, err := fmt.Fprintf(a.env.Stdout, "... and %d more (--limit 0 shows all)\n", more)
		return err
	}
	return nil
}

// countInbox returns how many messages wait in agent's inbox, or -1 when
// the store cannot count them.
func countInbox(ctx context.Context, m *mailboxStore, agent string) int {
	n, err := m.be.Depth(ctx, agent)
	if err != nil {
		return -1
	}
	return n
}
