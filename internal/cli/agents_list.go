package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// listAgents returns every card with its status and depth, then the agents
// that have messages waiting but no card, each group sorted by id. A store
// that counts its inboxes through Browse and cannot (no permission to
// read its history) still lists the cards: warn says why the depths are
// missing.
func listAgents(ctx context.Context, m *mailboxStore, now time.Time, offlineAfter time.Duration, warn func(error)) ([]agentLine, error) {
	agents, err := view.ListAgents(ctx, m.be, now, offlineAfter, false)
	if err != nil {
		return nil, err
	}
	if pl, ok := m.be.(store.PresenceLister); ok {
		online, err := pl.Online(ctx)
		if err != nil {
			return nil, err
		}
		applyPresence(agents, online)
	}
	var ids []string
	for _, ag := range agents {
		ids = append(ids, ag.AgentID)
	}
	depths, known, err := inboxDepths(ctx, m, ids)
	if _, counts := m.be.(store.InboxCounter); err != nil && !counts && ctx.Err() == nil {
		warn(fmt.Errorf("inbox depths not shown: %w", err))
		depths, known, err = map[string]int{}, false, nil
	}
	if err != nil {
		return nil, err
	}
	var lines []agentLine
	for _, ag := range agents {
		roles := ag.Roles
		if roles == nil {
			roles = []string{}
		}
		lines = append(lines, agentLine{Agent: ag, Roles: roles, Registered: true,
			InboxDepth: depths[ag.AgentID], depthUnknown: !known})
	}
	addBreakers(ctx, m.be, lines, now, warn)
	var waiting []string
	for id, n := range depths {
		if n > 0 && !slices.Contains(ids, id) {
			waiting = append(waiting, id)
		}
	}
	slices.Sort(waiting)
	for _, id := range waiting {
		lines = append(lines, agentLine{InboxDepth: depths[id], Roles: []string{}, Agent: view.Agent{
			Card:      envelope.Card{AgentID: id, Capabilities: []string{}, AllowFrom: []string{}, CurrentTasks: []string{}},
			Effective: envelope.StatusOffline,
		}})
	}
	return lines, nil
}

// applyPresence sets the status of agents from who is online: an agent
// without a presence entry is offline, whatever its card says; one with an
// entry is idle or busy as the entry (else its card) says.
func applyPresence(agents []view.Agent, online []store.Presence) {
	for i := range agents {
		ag := &agents[i]
		at := slices.IndexFunc(online, func(p store.Presence) bool { return p.Agent == ag.AgentID })
		switch {
		case at < 0:
			ag.Effective = envelope.StatusOffline
		case online[at].Status == envelope.StatusIdle || online[at].Status == envelope.StatusBusy:
			ag.Effective = online[at].Status
		case len(ag.CurrentTasks) > 0:
			ag.Effective = envelope.StatusBusy
		default:
			ag.Effective = envelope.StatusIdle
		}
	}
}

// inboxDepths counts the messages waiting in the inbox of each agent of
// registered and of every agent that has an inbox. known is false when
// the store cannot count them. On a store that cannot count them itself
// (a store.InboxCounter, as the filesystem store is) the depth is what
// inbox lists there: every message not acknowledged yet, pending or claimed (a broker's inbox takes messages ahead of its
// receiver, so a backlog shows as claimed while the agent runs).
func inboxDepths(ctx context.Context, m *mailboxStore, registered []string) (depths map[string]int, known bool, err error) {
	depths = map[string]int{}
	if c, ok := m.be.(store.InboxCounter); ok {
		dirs, err := c.Agents()
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, false, err
		}
		for _, id := range append(slices.Clone(registered), dirs...) {
			n, err := c.Depth(id)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, false, fmt.Errorf("inbox of %s: %w", id, err)
			}
			depths[id] = n
		}
		return depths, true, nil
	}
	br, ok := m.be.(store.Browser)
	if !ok {
		return depths, false, nil
	}
	err = br.Browse(ctx, func(st store.Stored) bool {
		if unhandled(st.Box) {
			depths[st.Agent]++
		}
		return true
	})
	if err != nil {
		return nil, false, err
	}
	return depths, true, nil
}
