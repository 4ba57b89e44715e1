package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
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
	presence, err := m.be.Presence(ctx, now, offlineAfter)
	if err != nil {
		return nil, err
	}
	for i := range agents {
		if p, ok := presence[agents[i].AgentID]; ok {
			agents[i].Effective = p.Status
		}
	}
	var ids []string
	for _, ag := range agents {
		ids = append(ids, ag.AgentID)
	}
	depths, known, err := inboxDepths(ctx, m, ids)
	if err != nil && !m.be.Has(store.CanCount) && ctx.Err() == nil {
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
	if err := addKeyStates(ctx, m.be, lines); err != nil {
		return nil, err
	}
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

// inboxDepths counts the messages waiting in the inbox of each agent of
// registered and of every agent that has an inbox (store.Store.Depths).
// known is false when the store cannot count them. On a store that
// cannot count them itself (store.CanCount, as the filesystem store
// can) the depth is what inbox lists there: every message not
// acknowledged yet, pending or claimed (a broker's inbox takes messages
// ahead of its receiver, so a backlog shows as claimed while the agent
// runs).
func inboxDepths(ctx context.Context, m *mailboxStore, registered []string) (depths map[string]int, known bool, err error) {
	depths, err = m.be.Depths(ctx, registered)
	if errors.Is(err, store.ErrNotSupported) {
		return map[string]int{}, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return depths, true, nil
}

// addKeyStates sets the key state of each registered agent of lines: its
// card's key against the key pinned for it.
func addKeyStates(ctx context.Context, st *store.Store, lines []agentLine) error {
	for i := range lines {
		l := &lines[i]
		pin, err := keys.LoadPin(ctx, st, l.AgentID)
		if errors.Is(err, store.ErrCorruptState) {
			l.KeyState = keys.KeyChanged
			continue
		}
		if err != nil {
			return err
		}
		l.KeyState = keys.StateOf(l.Card, pin)
		if pin != nil {
			l.PinnedKey = pin.PublicKey
		}
	}
	return nil
}
