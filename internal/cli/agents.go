package cli

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

func (a *app) agentsCommand() *cobra.Command {
	var f agentsFlags
	cmd := &cobra.Command{
		Use:   "agents [--capability X] [--role X] [--by-role] [--json]",
		Short: "List the agents: cards, computed status and inbox depth",
		Long: `Agents lists every agent of the registry with the status others must assume
(offline once its heartbeat is older than channels.mailbox.offlineAfter,
whatever its card says), its pending messages, capabilities, roles, current
tasks and last heartbeat. Agents that have messages waiting but never
registered are listed too, as unregistered.

It works on the configured store (channels.mailbox.backend; --root names a
mailbox folder instead). On NATS the status comes from the presence
bucket: an agent is online while its key lives (renewed by each
heartbeat, gone after offlineAfter or a clean stop). It only reads, and
creates nothing: a NATS server without the mailbox's stream has no agents.

--capability and --role keep only the agents whose card holds it (repeat a
flag to require several). --by-role prints instead one line per role: its
agents online of total, the free task slots of its online agents and the
ids of its agents; agents without a role are counted under "-".

Each agent's signing key is compared with the key pinned for it
(key_state in --json: none, unpinned, pinned, changed, or "pinned, not on
card"; pinned_key). An agent whose messages come unverified (no key: a
nanobot agent or an older switchboard) or are refused (its key changed)
is followed by "(unverified)"; a changed key is also said in STATUS, until
` + "`switchboard agents trust ID`" + ` accepts it (see docs/security.md).`,
		Example: `  switchboard agents
  switchboard agents --json | jq -r 'select(.effective_status != "offline") | .agent_id'
  switchboard agents --capability review --role reviewer
  switchboard agents --by-role`,
		Args:              exactArgs(),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			if err := f.validate(); err != nil {
				return err
			}
			return a.agents(cmd, f)
		}),
	}
	cmd.Flags().BoolVar(&f.json, "json", false, "print one JSON object per agent (per role with --by-role)")
	cmd.Flags().StringArrayVar(&f.capabilities, "capability", nil, "only agents offering capability `X` (repeat: each required)")
	cmd.Flags().StringArrayVar(&f.roles, "role", nil, "only agents having role `X` (repeat: each required)")
	cmd.Flags().BoolVar(&f.byRole, "by-role", false, "print a summary by role instead of the agents")
	cmd.AddCommand(a.agentsTrustCommand())
	return cmd
}

// agentLine is an agent as agents --json prints it: the card's fields,
// roles always (an empty list when it has none), effective_status,
// inbox_depth and whether it has a card at all.
type agentLine struct {
	view.Agent
	Roles      []string `json:"roles"` // the card's, never omitted
	InboxDepth int      `json:"inbox_depth"`
	Registered bool     `json:"registered"`
	// Breakers are the circuit breakers other agents hold open against
	// this one: their sends to it fail fast until the breaker's until.
	Breakers []limits.Open `json:"breakers,omitempty"`
	// KeyState compares the card's key with the one pinned (PinnedKey):
	// see keys.KeyState; empty for an agent without a card.
	KeyState  keys.KeyState `json:"key_state,omitempty"`
	PinnedKey string        `json:"pinned_key,omitempty"`
	// depthUnknown: the store cannot count the inbox (InboxDepth is 0).
	depthUnknown bool
}

func (a *app) agents(cmd *cobra.Command, f agentsFlags) error {
	m, s, err := a.openMailbox(true)
	if err != nil {
		return err
	}
	defer m.close()
	now := time.Now()
	var lines []agentLine
	if m.be != nil { // no store yet: no agents
		if lines, err = listAgents(cmd.Context(), m, now, seconds(s.mailbox.OfflineAfter), a.warn); err != nil {
			return err
		}
	}
	lines = f.keep(lines)
	if f.byRole {
		return a.printRoles(lines, f.json)
	}
	if f.json {
		for _, l := range lines {
			if err := writeJSON(a.env.Stdout, l); err != nil {
				return err
			}
		}
		return nil
	}
	if len(lines) == 0 {
		_, err := fmt.Fprintf(a.env.Stdout, "no agents%s in %s\n", f.describe(), m.where)
		return err
	}
	p := newPalette(a.env.Stdout, a.env.Environ)
	w := a.table()
	row(w, "AGENT", p.paint(colorDefault, "STATUS"), "INBOX", "TASKS", "CAPABILITIES", "ROLES", "HEARTBEAT", "DESCRIPTION")
	for _, l := range lines {
		status := string(l.Effective)
		if !l.Registered {
			status = "unregistered"
		}
		status += breakerNote(now, l.Breakers)
		if l.KeyState == keys.KeyChanged {
			status += ", key changed"
		}
		tasks := fmt.Sprintf("%d/%d", len(l.CurrentTasks), l.MaxConcurrentTasks)
		if !l.Registered {
			tasks = "-"
		}
		depth := strconv.Itoa(l.InboxDepth)
		if l.depthUnknown {
			depth = "-"
		}
		row(w, l.AgentID+keyMark(l.KeyState), p.paint(statusColor(status), status), depth, tasks,
			list(l.Capabilities), list(l.Roles), ago(now, l.LastHeartbeat.Time), clip(orDash(l.Description), 50))
	}
	return w.Flush()
}

// keyMark follows the id of an agent whose messages do not verify: it
// has no key, or not the one pinned.
func keyMark(state keys.KeyState) string {
	switch state {
	case keys.KeyNone, keys.KeyChanged, keys.KeyPinnedOnly:
		return " " + unverifiedMark
	}
	return ""
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
