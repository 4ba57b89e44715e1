package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

func (a *app) agentsCommand() *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "agents [--json]",
		Short: "List the agents: cards, computed status and inbox depth",
		Long: `Agents lists every agent of the registry with the status others must assume
(offline once its heartbeat is older than channels.mailbox.offlineAfter,
whatever its card says), its pending messages, capabilities, current tasks
and last heartbeat. Agents that have messages waiting but never registered
are listed too, as unregistered.`,
		Example: `  switchboard agents
  switchboard agents --json | jq -r 'select(.effective_status != "offline") | .agent_id'`,
		Args:              exactArgs(),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			return a.agents(cmd, jsonOut)
		}),
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per agent")
	return cmd
}

// agentLine is an agent as agents --json prints it: the card's fields,
// effective_status, inbox_depth and whether it has a card at all.
type agentLine struct {
	mailbox.Agent
	InboxDepth int  `json:"inbox_depth"`
	Registered bool `json:"registered"`
}

func (a *app) agents(cmd *cobra.Command, jsonOut bool) error {
	st, s, err := a.openExistingStore()
	if err != nil {
		return err
	}
	now := time.Now()
	var lines []agentLine
	if st != nil { // a missing root has no agents
		defer st.Close()
		if lines, err = listAgents(cmd.Context(), st, now, seconds(s.mailbox.OfflineAfter)); err != nil {
			return err
		}
	}
	if jsonOut {
		for _, l := range lines {
			if err := writeJSON(a.env.Stdout, l); err != nil {
				return err
			}
		}
		return nil
	}
	if len(lines) == 0 {
		_, err := fmt.Fprintf(a.env.Stdout, "no agents in %s\n", s.mailbox.MailboxesRoot)
		return err
	}
	p := newPalette(a.env.Stdout, a.env.Environ)
	w := table(a.env.Stdout)
	row(w, "AGENT", p.paint(colorDefault, "STATUS"), "INBOX", "TASKS", "CAPABILITIES", "HEARTBEAT", "DESCRIPTION")
	for _, l := range lines {
		status := string(l.Effective)
		if !l.Registered {
			status = "unregistered"
		}
		tasks := fmt.Sprintf("%d/%d", len(l.CurrentTasks), l.MaxConcurrentTasks)
		if !l.Registered {
			tasks = "-"
		}
		row(w, l.AgentID, p.paint(statusColor(status), status), strconv.Itoa(l.InboxDepth), tasks,
			list(l.Capabilities), ago(now, l.LastHeartbeat.Time), clip(orDash(l.Description), 50))
	}
	return w.Flush()
}

// listAgents returns every card with its status and depth, then the agents
// that have messages waiting but no card, each group sorted by id.
func listAgents(ctx context.Context, st *fsstore.Store, now time.Time, offlineAfter time.Duration) ([]agentLine, error) {
	agents, err := mailbox.ListAgents(ctx, st, now, offlineAfter, false)
	if err != nil {
		return nil, err
	}
	depth := func(id string) (int, error) {
		n, err := st.Depth(id)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("inbox of %s: %w", id, err)
		}
		return n, nil
	}
	var lines []agentLine
	for _, ag := range agents {
		n, err := depth(ag.AgentID)
		if err != nil {
			return nil, err
		}
		lines = append(lines, agentLine{Agent: ag, Registered: true, InboxDepth: n})
	}
	dirs, err := st.Agents()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, id := range dirs {
		if slices.ContainsFunc(agents, func(ag mailbox.Agent) bool { return ag.AgentID == id }) {
			continue
		}
		n, err := depth(id)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			continue
		}
		lines = append(lines, agentLine{InboxDepth: n, Agent: mailbox.Agent{
			Card:      envelope.Card{AgentID: id, Capabilities: []string{}, AllowFrom: []string{}, CurrentTasks: []string{}},
			Effective: envelope.StatusOffline,
		}})
	}
	return lines, nil
}

// statusColor is the colour of an agent status.
func statusColor(status string) string {
	switch envelope.Status(status) {
	case envelope.StatusIdle:
		return colorGreen
	case envelope.StatusBusy:
		return colorYellow
	case envelope.StatusOffline:
		return colorGrey
	}
	return colorDefault
}
