package view

import (
	"cmp"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// RoleCount is how many agents have one role, and how many of them are
// online.
type RoleCount struct {
	Role   string `json:"role"`
	Agents int    `json:"agents"`
	Online int    `json:"online"`
}

// RoleSummary counts agents by role, sorted by role; agents without a
// role are counted under "".
func RoleSummary(agents []Agent) []RoleCount {
	byRole := map[string]*RoleCount{}
	count := func(role string, online bool) {
		rc := byRole[role]
		if rc == nil {
			rc = &RoleCount{Role: role}
			byRole[role] = rc
		}
		rc.Agents++
		if online {
			rc.Online++
		}
	}
	for _, a := range agents {
		online := a.Effective != envelope.StatusOffline
		if len(a.Roles) == 0 {
			count("", online)
		}
		for _, r := range a.Roles {
			count(r, online)
		}
	}
	out := make([]RoleCount, 0, len(byRole))
	for _, rc := range byRole {
		out = append(out, *rc)
	}
	slices.SortFunc(out, func(a, b RoleCount) int { return cmp.Compare(a.Role, b.Role) })
	return out
}
