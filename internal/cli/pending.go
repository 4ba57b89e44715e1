package cli

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// pendingLine is a pending reply as pending --json prints it.
type pendingLine struct {
	view.StoredPending
	// File is the request's path under the root; Box the folder it is in
	// (inbox: not read yet, claimed: being handled).
	File string `json:"file"`
	Box  string `json:"box"`
}

func (a *app) pendingCommand() *cobra.Command {
	var (
		taskID           string
		overdue, jsonOut bool
	)
	cmd := &cobra.Command{
		Use:   "pending [AGENT] [--task ID] [--overdue] [--json]",
		Short: "List the requests still owed a reply, oldest first",
		Long: `Pending lists the requests (messages sent with expects_reply, and tasks)
that have no reply yet, oldest first: with AGENT, those AGENT sent or must
answer; with --task, those of one task. A message is answered by a message
back to its sender whose reply_to names it; a task by a final task_update.
Requests in an archive (their task ended) are not pending.

A request is overdue past its reply_by, else its task's deadline, else its
time plus channels.mailbox.replyTimeout.

It works on the configured store (channels.mailbox.backend; --root names a
mailbox folder instead), on any store that can list its messages.`,
		Example: `  switchboard pending coder
  switchboard pending --task t1 --json | jq -r .message_id
  switchboard pending --overdue`,
		Args:              maxArgs("agent"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			f := view.PendingFilter{TaskID: taskID, OverdueOnly: overdue}
			if len(args) == 1 {
				if err := envelope.ValidateAgentID(args[0]); err != nil {
					return asUsage(err)
				}
				f.Agent = args[0]
			}
			return a.pending(cmd.Context(), f, jsonOut)
		}),
	}
	cmd.Flags().StringVar(&taskID, "task", "", "only the requests of this task")
	cmd.Flags().BoolVar(&overdue, "overdue", false, "only the requests past their due time")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per request")
	return cmd
}

// wholeStoreGCPercent is the collector's target while a view goes
// through a whole store (pending, thread): what such a view keeps is
// small next to the garbage of listing and decoding, so a target lower
// than Go's 100 keeps its peak memory near what it keeps, for a little
// more CPU (on 100,000 messages, pending: 18 MB of heap instead of 24,
// for about 15 % more CPU). GOGC in the environment wins.
const wholeStoreGCPercent = 50

// tightenGC sets wholeStoreGCPercent unless the environment sets GOGC;
// the function it returns restores the previous target.
func (a *app) tightenGC() (restore func()) {
	for _, kv := range a.env.Environ {
		if strings.HasPrefix(kv, "GOGC=") {
			return func() {}
		}
	}
	old := debug.SetGCPercent(wholeStoreGCPercent)
	return func() { debug.SetGCPercent(old) }
}

func (a *app) pending(ctx context.Context, f view.PendingFilter, jsonOut bool) error {
	defer a.tightenGC()()
	m, s, err := a.openMailbox(true)
	if err != nil {
		return err
	}
	defer m.close()
	f.Now, f.ReplyTimeout = time.Now(), seconds(s.mailbox.ReplyTimeout)
	var list []view.StoredPending
	if m.be != nil { // no store holds nothing, and is not created
		br, err := m.browser("pending")
		if err != nil {
			return err
		}
		if list, err = view.FindPending(ctx, br, f); err != nil {
			return err
		}
	}
	if jsonOut {
		for _, p := range list {
			if err := writeJSON(a.env.Stdout, pendingLine{StoredPending: p, File: p.Where.Ref, Box: string(p.Where.Box)}); err != nil {
				return err
			}
		}
		return nil
	}
	if len(list) == 0 {
		_, err := fmt.Fprintln(a.env.Stdout, "no replies pending")
		return err
	}
	p := newPalette(a.env.Stdout, a.env.Environ)
	w := a.table()
	row(w, "AGE", "FROM", "TO", "TYPE", "ID", "SUBJECT", "TASK", p.paint(colorDefault, "DUE"), "WHERE")
	for _, r := range list {
		due, color := "-", colorDefault
		if r.Due != nil {
			due = ago(f.Now, r.Due.Time)
		}
		if r.Overdue {
			due, color = "overdue "+due, colorRed
		}
		row(w, ago(f.Now, r.SentAt.Time), r.From, r.To, string(r.Type), r.MessageID, orDash(r.Subject),
			orDash(r.TaskID), p.paint(color, due), string(r.Where.Box))
	}
	return w.Flush()
}
