package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/tracing"
)

func (a *app) threadCommand() *cobra.Command {
	var jsonOut, task bool
	cmd := &cobra.Command{
		Use:   "thread ID [--task] [--json]",
		Short: "Show the reply chain of a message, in causal order",
		Long: `Thread finds message ID wherever it is now (any agent's inbox/, waiting or
claimed, processed/ or archive/), gathers its conversation (the messages linked to it
by reply_to, up and down, and those sharing its thread_id) and prints them
in causal order: a message after the one it answers, otherwise by
timestamp, then file name; each with its depth below the message it
answers. The file column is the path under the root. ID may also be a
task id (no message has it): the thread of the task's request is shown;
--task takes ID as a task id only.

It works on the configured store (channels.mailbox.backend; --root names a
mailbox folder instead), on any store that can list its messages.`,
		Example: `  switchboard thread 0196a1b2-...
  switchboard thread msg_1745659200_researcher --json | jq -r '.from + ": " + .text'`,
		Args:              exactArgs("id"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(args[0]) == "" {
				return usagef("ID is empty")
			}
			return a.thread(cmd.Context(), args[0], task, jsonOut)
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per message")
	cmd.Flags().BoolVar(&task, "task", false, "ID is a task id: show the thread of the task's request")
	return cmd
}

func (a *app) thread(ctx context.Context, id string, task, jsonOut bool) error {
	defer a.tightenGC()()
	m, s, err := a.openMailbox(true)
	if err != nil {
		return err
	}
	defer m.close()
	notFound := fmt.Errorf("message %s not found %s", id, m.in())
	if m.be == nil { // no store, no messages
		return notFound
	}
	br, err := m.browser("thread")
	if err != nil {
		return err
	}
	find := view.Thread
	if task {
		find = view.TaskThread
		notFound = fmt.Errorf("task %s not found %s", id, m.in())
	}
	chain, err := find(ctx, br, id)
	if errors.Is(err, view.ErrNotFound) {
		return notFound
	}
	if err != nil {
		return err
	}
	who := a.senders(ctx, m.be, s)
	if jsonOut {
		for _, e := range chain {
			line := newMessageLine(e.Ref, e.Message, nil).checked(who.check(e.Message))
			line.Depth = &e.Depth
			line.TraceID = tracing.TraceID(e.Message.Traceparent)
			if err := writeJSON(a.env.Stdout, line); err != nil {
				return err
			}
		}
		return nil
	}
	now := time.Now()
	w := a.table()
	row(w, "AGE", "FROM", "TO", "TYPE", "ID", "TEXT")
	for _, e := range chain {
		m := e.Message
		row(w, ago(now, m.Timestamp.Time), strings.Repeat("  ", e.Depth)+who.from(m, who.check(m)), m.To,
			kindLabel(m.Type, m.Task), m.ID, clip(envelope.OneLine(m.Content.Parts), 60))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return writeTraces(a.env.Stdout, chain)
}

// writeTraces prints, under the table, the trace id of the thread's
// messages and how many carry it: one line per trace, none when no
// message carries a trace context (tracing off, nanobot's messages).
func writeTraces(w io.Writer, chain []view.ThreadEntry) error {
	var order []string
	count := map[string]int{}
	for _, e := range chain {
		if id := tracing.TraceID(e.Message.Traceparent); id != "" {
			if count[id] == 0 {
				order = append(order, id)
			}
			count[id]++
		}
	}
	for _, id := range order {
		if _, err := fmt.Fprintf(w, "trace %s  (%d of %d messages)\n", id, count[id], len(chain)); err != nil {
			return err
		}
	}
	return nil
}

// threadOf is view.ThreadOf over messages read from the tree: the
// thread of message id in causal order, with each message's depth.
func threadOf(all []storedMessage, id string) ([]storedMessage, []int) {
	stored := make([]store.Stored, len(all))
	for i, m := range all {
		stored[i] = store.Stored{Message: m.msg, Ref: m.rel}
	}
	entries := view.ThreadOf(stored, id)
	chain := make([]storedMessage, len(entries))
	depths := make([]int, len(entries))
	for i, e := range entries {
		chain[i], depths[i] = storedMessage{rel: e.Ref, msg: e.Message}, e.Depth
	}
	return chain, depths
}
