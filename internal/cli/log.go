package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/audit"
)

// logFlags are the flags of log.
type logFlags struct {
	agent, since, until string
	kinds               []string
	id, thread, taskID  string
	jsonOut             bool
}

func (a *app) logCommand() *cobra.Command {
	var f logFlags
	cmd := &cobra.Command{
		Use:   "log [--agent A] [--kind K] [--since D] [--json]",
		Short: "Show the audit log of the mailbox, oldest first",
		Long: `Log prints the audit log, oldest first: one entry for each thing that
happened to a message. On the filesystem store it is <root>/manifest.jsonl
and its rotated files; on another store (channels.mailbox.backend), the
store's own log when it keeps one (--root names a mailbox folder instead).

Kinds: sent, claimed, delivered, processed, refused, quarantined, duplicate,
swept, overdue, pruned, orphaned.

--agent keeps the entries about an agent's inbox or sent by it; --since and
--until take an RFC 3339 time or a duration before now (10m, 2h).`,
		Example: `  switchboard log --agent coder --since 1h
  switchboard log --kind quarantined,refused --json | jq .reason`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			filter, err := f.filter(time.Now())
			if err != nil {
				return err
			}
			return a.log(cmd, filter, f.jsonOut)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.agent, "agent", "", "only entries about this agent's inbox or sent by it")
	fl.StringSliceVar(&f.kinds, "kind", nil, "only entries of these kinds (repeat or separate with commas)")
	fl.StringVar(&f.since, "since", "", "only entries at or after: an RFC 3339 time or a duration before now")
	fl.StringVar(&f.until, "until", "", "only entries before: an RFC 3339 time or a duration before now")
	fl.StringVar(&f.id, "id", "", "only entries about this message")
	fl.StringVar(&f.thread, "thread", "", "only entries about this thread")
	fl.StringVar(&f.taskID, "task", "", "only entries about this task")
	fl.BoolVar(&f.jsonOut, "json", false, "print one JSON object per entry")
	return cmd
}

// filter checks the flags and turns them into an audit filter. Every error
// is a usage error.
func (f logFlags) filter(now time.Time) (audit.Filter, error) {
	out := audit.Filter{Agent: f.agent, MessageID: f.id, ThreadID: f.thread, TaskID: f.taskID}
	if f.agent != "" {
		if err := envelope.ValidateAgentID(f.agent); err != nil {
			return out, usagef("--agent: %v", err)
		}
	}
	known := store.EventKinds()
	for _, k := range f.kinds {
		kind := store.EventKind(strings.TrimSpace(k))
		if !slices.Contains(known, kind) {
			return out, usagef("--kind %q: want one of %s", k, joinKinds(known))
		}
		out.Kinds = append(out.Kinds, kind)
	}
	var err error
	if out.Since, err = pastTime(f.since, now); err != nil {
		return out, usagef("--since: %v", err)
	}
	if out.Until, err = pastTime(f.until, now); err != nil {
		return out, usagef("--until: %v", err)
	}
	return out, nil
}

func joinKinds(kinds []store.EventKind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// pastTime reads an RFC 3339 time or a positive duration before now ("" is
// the zero time).
func pastTime(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("duration %s: want 0 or more (a time before now)", s)
		}
		return now.Add(-d), nil
	}
	if t, err := envelope.ParseTime(s); err == nil {
		return t.Time, nil
	}
	return time.Time{}, fmt.Errorf("want an RFC 3339 time (2026-04-26T11:00:00Z) or a duration before now (10m), got %q", s)
}

func (a *app) log(cmd *cobra.Command, f audit.Filter, jsonOut bool) error {
	s, err := a.settings()
	if err != nil {
		return err
	}
	now := time.Now()
	var w = a.table()
	if !jsonOut {
		row(w, "AGE", "KIND", "AGENT", "FROM", "ID", "DETAIL")
	}
	var writeErr error
	n := 0
	show := func(e audit.Entry) bool {
		n++
		if jsonOut {
			writeErr = writeJSON(a.env.Stdout, e)
			return writeErr == nil
		}
		row(w, ago(now, e.Time), string(e.Kind), e.Agent, orDash(e.From), orDash(e.MessageID), logDetail(e))
		return true
	}
	where := tilde(s.mailbox.MailboxesRoot)
	if a.backendKind(s) == backendFS {
		st, err := audit.Read(cmd.Context(), s.mailbox.MailboxesRoot, f, show)
		if err != nil || writeErr != nil {
			return firstErr(err, writeErr)
		}
		if st.Bad > 0 {
			fmt.Fprintf(a.env.Stderr, "switchboard: %d unreadable line(s) in the audit log skipped\n", st.Bad)
		}
	} else {
		m, err := a.readAudit(cmd.Context(), f, show)
		if err != nil || writeErr != nil {
			return firstErr(err, writeErr)
		}
		where = m.where
	}
	if jsonOut {
		return nil
	}
	if n == 0 {
		_, err := fmt.Fprintf(a.env.Stdout, "no audit entries in %s\n", where)
		return err
	}
	return w.Flush()
}

// readAudit calls fn with each entry of the audit log of a store other
// than the filesystem one that f matches, oldest first, until fn returns
// false. A store that does not exist yet has no entries.
func (a *app) readAudit(ctx context.Context, f audit.Filter, fn func(audit.Entry) bool) (*mailboxStore, error) {
	m, _, err := a.openMailbox(true)
	if err != nil {
		return nil, err
	}
	defer m.close()
	if m.be == nil {
		return m, nil
	}
	err = m.be.ReadAudit(ctx, func(ev store.Event) bool {
		e := audit.Entry{Event: ev}
		return !f.Match(e) || fn(e)
	})
	if errors.Is(err, store.ErrNotSupported) {
		return nil, m.lacks("log", "keeps no audit log that can be read back")
	}
	return m, err
}

// logDetail is the detail column: the reason, the task and the thread.
func logDetail(e audit.Entry) string {
	var parts []string
	if e.Reason != "" {
		parts = append(parts, clip(e.Reason, 60))
	}
	if e.TaskID != "" {
		parts = append(parts, "task "+e.TaskID)
	}
	if e.ThreadID != "" && e.ThreadID != e.MessageID {
		parts = append(parts, "thread "+e.ThreadID)
	}
	return orDash(strings.Join(parts, "; "))
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
