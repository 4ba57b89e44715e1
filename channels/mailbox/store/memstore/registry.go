package memstore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// UpdateCard implements driver.Registry. update runs once, under the hub's
// lock; it must not call the store. The card is stored as the filesystem
// store writes it: lists empty rather than nil, an empty status idle or
// busy as current_tasks say, registered_at and last_heartbeat set.
func (s *Store) UpdateCard(ctx context.Context, agentID string, update func(*envelope.Card)) (envelope.Card, error) {
	if err := validID(agentID); err != nil {
		return envelope.Card{}, fmt.Errorf("update card: %w", err)
	}
	if update == nil {
		return envelope.Card{}, fmt.Errorf("update card %q: update function is nil", agentID)
	}
	if err := s.checkOpen(ctx); err != nil {
		return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
	}
	h := s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	card := envelope.Card{AgentID: agentID}
	if raw, ok := h.cards[agentID]; ok {
		if err := json.Unmarshal(raw, &card); err != nil {
			return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
		}
	}
	update(&card)
	raw, card, err := driver.FinishCard(card, agentID, s.opts.Now())
	if err != nil {
		return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
	}
	h.cards[agentID] = raw
	return card, nil
}

// Card implements driver.Registry.
func (s *Store) Card(ctx context.Context, agentID string) (envelope.Card, error) {
	if err := validID(agentID); err != nil {
		return envelope.Card{}, fmt.Errorf("card: %w", err)
	}
	if err := s.checkOpen(ctx); err != nil {
		return envelope.Card{}, fmt.Errorf("card %q: %w", agentID, err)
	}
	s.hub.mu.Lock()
	raw, ok := s.hub.cards[agentID]
	s.hub.mu.Unlock()
	if !ok {
		return envelope.Card{}, fmt.Errorf("card %q: %w", agentID, driver.ErrUnknownAgent)
	}
	var card envelope.Card
	err := json.Unmarshal(raw, &card)
	return card, err
}

// Cards implements driver.Registry.
func (s *Store) Cards(ctx context.Context) ([]envelope.Card, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, fmt.Errorf("cards: %w", err)
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range s.hub.cards {
			if !yield(id) {
				return
			}
		}
	})
	out := make([]envelope.Card, 0, len(ids))
	for _, id := range ids {
		var card envelope.Card
		if err := json.Unmarshal(s.hub.cards[id], &card); err != nil {
			return nil, err
		}
		out = append(out, card)
	}
	return out, nil
}
