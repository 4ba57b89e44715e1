package natsstore

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

type presenceValue struct {
	AgentID       string          `json:"agent_id"`
	Status        envelope.Status `json:"status"`
	LastHeartbeat envelope.Time   `json:"last_heartbeat"`
}

// markPresence renews the presence key of the card's agent, or deletes it
// when the card says offline.
func (s *Store) markPresence(ctx context.Context, card envelope.Card) error {
	key := token(card.AgentID)
	if card.Status == envelope.StatusOffline {
		err := s.presence.Delete(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			return nil
		}
		return err
	}
	raw, err := json.Marshal(presenceValue{AgentID: card.AgentID, Status: card.Status, LastHeartbeat: card.LastHeartbeat})
	if err != nil {
		return err
	}
	_, err = s.presence.Put(ctx, key, raw)
	return err
}

// WatchPresence reports the agents online now (one Presence each), then
// every change (online, offline, or a new status), until ctx ends; the
// channel is closed then. Heartbeats that change nothing are not reported.
func (s *Store) WatchPresence(ctx context.Context) (<-chan driver.Presence, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, fmt.Errorf("watch presence: %w", err)
	}
	w, err := s.presence.WatchAll(ctx)
	if err != nil {
		return nil, fmt.Errorf("watch presence: %w", err)
	}
	out := make(chan driver.Presence)
	go func() {
		defer close(out)
		defer w.Stop()
		last := map[string]driver.Presence{} // what was reported of each agent
		for {
			var e jetstream.KeyValueEntry
			select {
			case e = <-w.Updates():
			case <-ctx.Done():
				return
			}
			if e == nil {
				continue // the end of the initial values
			}
			p, ok := presenceOf(e)
			if !ok {
				s.opts.Logger.Warn("presence entry not understood; skipped", "key", e.Key())
				continue
			}
			before, known := last[p.Agent]
			if (!known && !p.Online) || (known && before.Online == p.Online && before.Status == p.Status) {
				continue // not a change (a heartbeat, or the marker of an expired delete)
			}
			last[p.Agent] = p
			select {
			case out <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

func presenceOf(e jetstream.KeyValueEntry) (driver.Presence, bool) {
	agent, ok := agentOf(e.Key())
	if !ok {
		return driver.Presence{}, false
	}
	if e.Operation() != jetstream.KeyValuePut {
		return driver.Presence{Agent: agent}, true
	}
	var v presenceValue
	if err := json.Unmarshal(e.Value(), &v); err != nil {
		return driver.Presence{}, false
	}
	return driver.Presence{Agent: agent, Online: true, Status: v.Status, Heartbeat: v.LastHeartbeat.Time}, true
}

// agentOf reverses token.
func agentOf(tok string) (string, bool) {
	enc, ok := strings.CutPrefix(tok, "=")
	if !ok {
		return tok, envelope.ValidateAgentID(tok) == nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || envelope.ValidateAgentID(string(raw)) != nil {
		return "", false
	}
	return string(raw), true
}
