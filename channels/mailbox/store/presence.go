package store

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Presence is whether one agent is online, and the status others must
// assume of it (see Store.Presence).
type Presence = driver.Presence

// Presence returns who is online at now, by agent id: every agent with a
// card, online or not, and every agent the backend tracks as online. An
// agent is online as the backend tracks presence apart from the cards
// (CanTrackPresence: NATS's presence bucket, whose keys expire
// offlineAfter after the last heartbeat), else as its card says (a status
// other than offline and a heartbeat younger than offlineAfter: see
// envelope.Card.EffectiveStatus). Status is offline for an agent that is
// not online, else idle, busy or draining: as the tracked entry says,
// else as the card's current tasks say.
func (s *Store) Presence(ctx context.Context, now time.Time, offlineAfter time.Duration) (map[string]Presence, error) {
	cards, err := s.be.Cards(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Presence, len(cards))
	pl, tracked := s.be.(driver.PresenceLister)
	if !tracked {
		for _, c := range cards {
			st := c.EffectiveStatus(now, offlineAfter)
			out[c.AgentID] = Presence{Agent: c.AgentID, Online: st != envelope.StatusOffline, Status: st,
				Heartbeat: c.LastHeartbeat.Time}
		}
		return out, nil
	}
	online, err := pl.Online(ctx)
	if err != nil {
		return nil, err
	}
	for _, c := range cards {
		out[c.AgentID] = Presence{Agent: c.AgentID, Status: envelope.StatusOffline, Heartbeat: c.LastHeartbeat.Time}
	}
	for _, p := range online {
		if !p.Online {
			continue
		}
		if p.Status != envelope.StatusIdle && p.Status != envelope.StatusBusy && p.Status != envelope.StatusDraining {
			p.Status = envelope.StatusIdle
			if c, ok := out[p.Agent]; ok && len(cardOf(cards, c.Agent).CurrentTasks) > 0 {
				p.Status = envelope.StatusBusy
			}
		}
		out[p.Agent] = p
	}
	return out, nil
}

// cardOf returns the card of agent among cards (a zero card if none).
func cardOf(cards []envelope.Card, agent string) envelope.Card {
	for _, c := range cards {
		if c.AgentID == agent {
			return c
		}
	}
	return envelope.Card{}
}
