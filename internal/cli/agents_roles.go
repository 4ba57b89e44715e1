package cli

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// agentsFlags are the flags of agents.
type agentsFlags struct {
	json         bool
	byRole       bool
	capabilities []string // every one required
	roles        []string // every one required
}

// validate refuses empty names and names that could not be on a card
// (blanks, commas), as usage errors.
func (f agentsFlags) validate() error {
	check := func(flag string, names []string) error {
		for _, n := range names {
			if n == "" || strings.ContainsAny(n, ", \t\n") {
				return usagef("--%s %q: want one non-empty name without blanks or commas", flag, n)
			}
		}
		return nil
	}
	if err := check("capability", f.capabilities); err != nil {
		return err
	}
	return check("role", f.roles)
}

// keep returns the lines whose card holds every capability and role asked
// for; with none asked, all of them.
func (f agentsFlags) keep(lines []agentLine) []agentLine {
	if len(f.capabilities) == 0 && len(f.roles) == 0 {
		return lines
	}
	return slices.DeleteFunc(lines, func(l agentLine) bool {
		for _, c := range f.capabilities {
			if !l.HasCapability(c) {
				return true
			}
		}
		for _, r := range f.roles {
			if !slices.Contains(l.Roles, r) {
				return true
			}
		}
		return false
	})
}

// describe names the filters for the "no agents" line: "" without any.
func (f agentsFlags) describe() string {
	var parts []string
	for _, c := range f.capabilities {
		parts = append(parts, "capability "+c)
	}
	for _, r := range f.roles {
		parts = append(parts, "role "+r)
	}
	if len(parts) == 0 {
		return ""
	}
	return " with " + strings.Join(parts, " and ")
}

// roleLine is one role as agents --by-role --json prints it: role, agents
// (total), online, the free task slots of its online agents and the ids of
// its agents, sorted.
type roleLine struct {
	view.RoleCount
	FreeSlots int      `json:"free_slots"`
	AgentIDs  []string `json:"agent_ids"`
}

// roleLines summarises the registered agents of lines by role, sorted by
// role; agents without a role are under "".
func roleLines(lines []agentLine) []roleLine {
	var agents []view.Agent
	for _, l := range lines {
		if l.Registered {
			agents = append(agents, l.Agent)
		}
	}
	counts := view.RoleSummary(agents)
	out := make([]roleLine, 0, len(counts))
	for _, rc := range counts {
		rl := roleLine{RoleCount: rc, AgentIDs: []string{}}
		for _, ag := range agents {
			if rc.Role == "" && len(ag.Roles) > 0 || rc.Role != "" && !ag.HasRole(rc.Role) {
				continue
			}
			rl.AgentIDs = append(rl.AgentIDs, ag.AgentID)
			if ag.Effective != envelope.StatusOffline {
				rl.FreeSlots += ag.FreeSlots()
			}
		}
		slices.Sort(rl.AgentIDs)
		out = append(out, rl)
	}
	return out
}

// printRoles prints the summary by role of lines, as a table or one JSON
// object per role.
func (a *app) printRoles(lines []agentLine, jsonOut bool) error {
	roles := roleLines(lines)
	if jsonOut {
		for _, rl := range roles {
			if err := writeJSON(a.env.Stdout, rl); err != nil {
				return err
			}
		}
		return nil
	}
	if len(roles) == 0 {
		_, err := fmt.Fprintln(a.env.Stdout, "no registered agents")
		return err
	}
	w := a.table()
	row(w, "ROLE", "ONLINE", "FREE", "AGENTS")
	for _, rl := range roles {
		row(w, orDash(rl.Role), fmt.Sprintf("%d/%d", rl.Online, rl.Agents), strconv.Itoa(rl.FreeSlots), list(rl.AgentIDs))
	}
	return w.Flush()
}
