package cli

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func (a *app) threadCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "thread ID [--json]",
		Short: "Show the reply chain of a message, in causal order",
		Long: `Thread finds message ID in any agent's inbox/, claimed/ or processed/ folder,
follows reply_to up to the first message of the conversation and then down
to every reply, and prints them in causal order (by timestamp, then file
name), each with its depth below the first message.`,
		Example: `  switchboard thread 0196a1b2-...
  switchboard thread msg_1745659200_researcher --json | jq -r '.from + ": " + .text'`,
		Args: exactArgs("id"),
		RunE: a.action(func(_ *cobra.Command, args []string) error {
			if strings.TrimSpace(args[0]) == "" {
				return usagef("ID is empty")
			}
			return a.thread(args[0], jsonOut)
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per message")
	return cmd
}

func (a *app) thread(id string, jsonOut bool) error {
	s, err := a.settings()
	if err != nil {
		return err
	}
	root := s.mailbox.MailboxesRoot
	all, err := readTree(root, s.mailbox.MaxMessageBytes)
	if err != nil {
		return err
	}
	chain, depths := threadOf(all, id)
	if len(chain) == 0 {
		return fmt.Errorf("message %s not found under %s", id, root)
	}
	if jsonOut {
		for i, m := range chain {
			line := newMessageLine(m.rel, m.msg, nil)
			line.Depth = &depths[i]
			if err := writeJSON(a.env.Stdout, line); err != nil {
				return err
			}
		}
		return nil
	}
	now := time.Now()
	w := table(a.env.Stdout)
	row(w, "AGE", "FROM", "TO", "TYPE", "ID", "TEXT")
	for i, m := range chain {
		indent := strings.Repeat("  ", depths[i])
		row(w, ago(now, m.msg.Timestamp.Time), indent+m.msg.From, m.msg.To,
			kindLabel(m.msg.Type, m.msg.Task), m.msg.ID, clip(summary(m.msg.Content.Parts), 60))
	}
	return w.Flush()
}

// threadOf returns the conversation message id belongs to, in causal
// order, with each message's depth below the first one: reply_to is
// followed up to the first message, then every reply to a message of the
// thread is taken, recursively. nanobot's ids are not unique, so an id
// may name several messages; the earliest is taken as the parent.
func threadOf(all []storedMessage, id string) ([]storedMessage, []int) {
	slices.SortFunc(all, causal)
	byID := map[string][]int{}
	replies := map[string][]int{}
	for i, m := range all {
		byID[m.msg.ID] = append(byID[m.msg.ID], i)
		if m.msg.ReplyTo != "" {
			replies[m.msg.ReplyTo] = append(replies[m.msg.ReplyTo], i)
		}
	}
	found, ok := byID[id]
	if !ok {
		return nil, nil
	}
	top := found[0]
	up := map[int]bool{top: true}
	for {
		parents := byID[all[top].msg.ReplyTo]
		if all[top].msg.ReplyTo == "" || len(parents) == 0 || up[parents[0]] {
			break
		}
		top = parents[0]
		up[top] = true
	}
	depth := map[int]int{top: 0}
	queue := []int{top}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, r := range replies[all[i].msg.ID] {
			if _, seen := depth[r]; !seen {
				depth[r] = depth[i] + 1
				queue = append(queue, r)
			}
		}
	}
	idx := make([]int, 0, len(depth))
	for i := range depth {
		idx = append(idx, i)
	}
	slices.Sort(idx) // all is in causal order already
	chain := make([]storedMessage, len(idx))
	depths := make([]int, len(idx))
	for k, i := range idx {
		chain[k], depths[k] = all[i], depth[i]
	}
	return chain, depths
}

// causal orders messages by timestamp, then file name.
func causal(a, b storedMessage) int {
	return cmp.Or(a.msg.Timestamp.Compare(b.msg.Timestamp.Time),
		cmp.Compare(filepath.Base(a.rel), filepath.Base(b.rel)),
		cmp.Compare(a.rel, b.rel))
}
