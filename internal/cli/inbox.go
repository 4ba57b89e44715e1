package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func (a *app) inboxCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "inbox AGENT [--json]",
		Short: "List AGENT's pending messages, oldest first (read only)",
		Long: `Inbox lists the messages waiting in AGENT's inbox, oldest first, without
claiming or changing anything. A file that cannot be read is listed with
the reason (the receiver will set it aside).`,
		Example: `  switchboard inbox coder
  switchboard inbox coder --json | jq -r .id`,
		Args:              exactArgs("agent"),
		ValidArgsFunction: a.completeAgentArg,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			if err := envelope.ValidateAgentID(args[0]); err != nil {
				return asUsage(err)
			}
			return a.inbox(cmd, args[0], jsonOut)
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per message")
	return cmd
}

func (a *app) inbox(cmd *cobra.Command, agent string, jsonOut bool) error {
	st, _, err := a.openExistingStore()
	if err != nil {
		return err
	}
	var lines []messageLine
	var writeErr error
	if st != nil {
		defer st.Close()
		err = st.Pending(cmd.Context(), agent, func(name string, msg *envelope.Message, err error) bool {
			line := newMessageLine(name, msg, err)
			if jsonOut {
				writeErr = writeJSON(a.env.Stdout, line)
				return writeErr == nil
			}
			lines = append(lines, line)
			return true
		})
	}
	if errors.Is(err, fs.ErrNotExist) {
		err = nil // no inbox yet: nothing pending
	}
	if err = errors.Join(err, writeErr); err != nil || jsonOut {
		return err
	}
	if len(lines) == 0 {
		_, err := fmt.Fprintf(a.env.Stdout, "no messages pending for %s\n", agent)
		return err
	}
	now := time.Now()
	w := table(a.env.Stdout)
	row(w, "AGE", "FROM", "TYPE", "ID", "TEXT")
	for _, l := range lines {
		if l.Message == nil {
			row(w, "-", "-", "unreadable", l.File, l.Error)
			continue
		}
		m := l.Message
		row(w, ago(now, m.Timestamp.Time), m.From, kindLabel(m.Type, m.Task), m.ID, clip(summary(m.Content.Parts), 60))
	}
	return w.Flush()
}
