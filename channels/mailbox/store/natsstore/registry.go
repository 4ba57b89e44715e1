package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// casAttempts bounds how often UpdateCard retries after losing a race.
const casAttempts = 64

// UpdateCard implements driver.Registry with compare-and-set on the card's
// key: update is applied to the card as read and the result written only
// if no one wrote the key meanwhile; otherwise it starts over from the new
// card, so update may run more than once and must only set fields. The
// card is written as the filesystem store writes it (lists empty rather
// than nil, an empty status idle or busy as current_tasks say,
// registered_at and last_heartbeat set). The agent's presence key is
// renewed, or deleted when the card says offline.
func (s *Store) UpdateCard(ctx context.Context, agentID string, update func(*envelope.Card)) (envelope.Card, error) {
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return envelope.Card{}, fmt.Errorf("update card: %w", err)
	}
	if update == nil {
		return envelope.Card{}, fmt.Errorf("update card %q: update function is nil", agentID)
	}
	if err := s.checkOpen(ctx); err != nil {
		return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
	}
	key := token(agentID)
	for range casAttempts {
		card, rev, err := s.readCard(ctx, agentID)
		if err != nil && !errors.Is(err, driver.ErrUnknownAgent) {
			return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
		}
		update(&card)
		raw, written, err := driver.FinishCard(card, agentID, s.opts.Now())
		if err != nil {
			return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
		}
		if rev == 0 {
			rev, err = s.registry.Create(ctx, key, raw)
		} else {
			rev, err = s.registry.Update(ctx, key, raw, rev)
		}
		if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue // someone else wrote it meanwhile: start over
		}
		if err != nil {
			return envelope.Card{}, fmt.Errorf("update card %q: %w", agentID, err)
		}
		var presenceAt time.Time
		if err := s.markPresence(ctx, written); err != nil {
			s.opts.Logger.Warn("presence not updated", "agent", agentID, "err", err)
		} else if written.Status != envelope.StatusOffline {
			presenceAt = written.LastHeartbeat.Time
		}
		s.beats.wrote(agentID, agentID == s.opts.Agent, written, rev, presenceAt)
		return written, nil
	}
	return envelope.Card{}, fmt.Errorf("update card %q: %d writers kept changing it; try again", agentID, casAttempts)
}

// readCard returns agentID's card and its revision; a missing card is a
// zero card with AgentID set, revision 0 and an error wrapping
// driver.ErrUnknownAgent.
func (s *Store) readCard(ctx context.Context, agentID string) (envelope.Card, uint64, error) {
	e, err := s.registry.Get(ctx, token(agentID))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return envelope.Card{AgentID: agentID}, 0, fmt.Errorf("card %q: %w", agentID, driver.ErrUnknownAgent)
	}
	if err != nil {
		return envelope.Card{}, 0, fmt.Errorf("read card %q: %w", agentID, err)
	}
	var card envelope.Card
	if err := json.Unmarshal(e.Value(), &card); err != nil {
		s.opts.Logger.Warn("registry entry is not a card; it is replaced on the next update", "agent", agentID, "err", err)
		card = envelope.Card{}
	}
	card.AgentID = agentID
	return card, e.Revision(), nil
}

// Card implements driver.Registry.
func (s *Store) Card(ctx context.Context, agentID string) (envelope.Card, error) {
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return envelope.Card{}, fmt.Errorf("card: %w", err)
	}
	if err := s.checkOpen(ctx); err != nil {
		return envelope.Card{}, fmt.Errorf("card %q: %w", agentID, err)
	}
	card, _, err := s.readCard(ctx, agentID)
	if err != nil {
		return envelope.Card{}, err
	}
	return card, nil
}

// Cards implements driver.Registry: every card, sorted by agent id.
// Entries that are not cards are left out with a warning.
func (s *Store) Cards(ctx context.Context) ([]envelope.Card, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, fmt.Errorf("cards: %w", err)
	}
	w, err := s.registry.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("cards: %w", err)
	}
	defer w.Stop()
	var cards []envelope.Card
	for {
		select {
		case e := <-w.Updates():
			if e == nil { // the end of the initial values
				slices.SortFunc(cards, func(a, b envelope.Card) int { return strings.Compare(a.AgentID, b.AgentID) })
				return cards, nil
			}
			var card envelope.Card
			if err := json.Unmarshal(e.Value(), &card); err != nil || envelope.ValidateAgentID(card.AgentID) != nil ||
				token(card.AgentID) != e.Key() {
				s.opts.Logger.Warn("registry entry is not a card; skipped", "key", e.Key(), "err", err)
				continue
			}
			cards = append(cards, card)
		case <-ctx.Done():
			return nil, fmt.Errorf("cards: %w", ctx.Err())
		}
	}
}
