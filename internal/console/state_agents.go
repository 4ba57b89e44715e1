package console

import (
	"context"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// AgentRow is one agent as the Agents view shows it.
type AgentRow struct {
	ID           string          `json:"id"`
	Description  string          `json:"description,omitempty"`
	Capabilities []string        `json:"capabilities"`
	Roles        []string        `json:"roles"`
	Status       envelope.Status `json:"status"` // effective: offline once the heartbeat is stale
	Online       bool            `json:"online"`
	Tasks        int             `json:"tasks"`
	MaxTasks     int             `json:"max_tasks"`
	// HeartbeatAge is seconds since the last heartbeat (-1: never).
	HeartbeatAge float64 `json:"heartbeat_age"`
	// Depth is how many messages wait in its inbox; OldestAge is the age
	// in seconds of the oldest (-1: none).
	Depth      int     `json:"depth"`
	OldestAge  float64 `json:"oldest_age"`
	Registered bool    `json:"registered"`
}

// agents lists the registered agents, and those with only an inbox.
func (c *Console) agents(ctx context.Context, all []store.Stored, now time.Time) ([]AgentRow, error) {
	list, err := view.ListAgents(ctx, c.cfg.Store, now, c.cfg.OfflineAfter, false)
	if err != nil {
		return nil, err
	}
	online := c.presence(ctx, now)
	depth, oldest := map[string]int{}, map[string]time.Time{}
	for _, s := range all {
		if s.Box != store.BoxInbox {
			continue
		}
		depth[s.Agent]++
		if o, ok := oldest[s.Agent]; !ok || s.Message.Timestamp.Before(o) {
			oldest[s.Agent] = s.Message.Timestamp.Time
		}
	}
	rows := make([]AgentRow, 0, len(list))
	seen := map[string]bool{}
	for _, a := range list {
		r := AgentRow{ID: a.AgentID, Description: a.Description, Capabilities: nonNil(a.Capabilities),
			Roles: nonNil(a.Roles), Status: a.Effective, Online: a.Effective != envelope.StatusOffline,
			Tasks: len(a.CurrentTasks), MaxTasks: a.MaxConcurrentTasks, HeartbeatAge: -1, Registered: true}
		if p, ok := online[a.AgentID]; ok {
			r.Status, r.Online = p.Status, p.Online
		}
		if !a.LastHeartbeat.IsZero() {
			r.HeartbeatAge = now.Sub(a.LastHeartbeat.Time).Seconds()
		}
		rows = append(rows, r)
		seen[a.AgentID] = true
	}
	if c.cfg.Store.Has(store.CanCount) {
		if names, err := c.cfg.Store.InboxAgents(); err == nil {
			for _, n := range names {
				if !seen[n] && n != Operator {
					rows = append(rows, AgentRow{ID: n, Capabilities: []string{}, Roles: []string{},
						Status: envelope.StatusOffline, HeartbeatAge: -1})
				}
			}
		}
	}
	counts := c.cfg.Store.Has(store.CanCount) // the store's own count of its inboxes
	for i := range rows {
		r := &rows[i]
		r.Depth, r.OldestAge = depth[r.ID], -1
		if counts {
			if d, err := c.cfg.Store.Depth(ctx, r.ID); err == nil {
				r.Depth = d
			}
		}
		if o, ok := oldest[r.ID]; ok {
			r.OldestAge = max(0, now.Sub(o).Seconds())
		}
	}
	slices.SortFunc(rows, func(a, b AgentRow) int { return compareStrings(a.ID, b.ID) })
	return rows, nil
}

// viewAgents turns rows back into what view.RoleSummary counts.
func (c *Console) viewAgents(rows []AgentRow) []view.Agent {
	out := make([]view.Agent, 0, len(rows))
	for _, r := range rows {
		if !r.Registered {
			continue
		}
		status := r.Status
		if !r.Online {
			status = envelope.StatusOffline
		}
		out = append(out, view.Agent{Card: envelope.Card{AgentID: r.ID, Roles: r.Roles}, Effective: status})
	}
	return out
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
