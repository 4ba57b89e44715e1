package natsstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.Heartbeater = (*Store)(nil)

// beat is what a store knows of the card of an agent it heartbeats: the
// card as it last wrote or read it, the card's revision in the registry
// bucket, and when it last put the agent's presence key.
type beat struct {
	card       envelope.Card
	rev        uint64
	presenceAt time.Time
}

// beats holds the beat of each agent a store heartbeats.
type beats struct {
	mu sync.Mutex
	m  map[string]beat
}

func (b *beats) get(agent string) (beat, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.m[agent]
	return v, ok
}

func (b *beats) set(agent string, v beat) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil {
		b.m = map[string]beat{}
	}
	b.m[agent] = v
}

// wrote records a card this store wrote, if it heartbeats its agent or
// acts for it (own).
func (b *beats) wrote(agent string, own bool, card envelope.Card, rev uint64, presenceAt time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.m[agent]; ok || own {
		if b.m == nil {
			b.m = map[string]beat{}
		}
		b.m[agent] = beat{card: card, rev: rev, presenceAt: presenceAt}
	}
}

func (b *beats) forget(agent string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, agent)
}

// Heartbeat implements driver.Heartbeater without a request to the server
// at most beats: the card and the presence key are written again only when
// what the server holds is older than maxAge (the mailbox's is at most half
// of offlineAfter, and a heartbeat interval less than offlineAfter minus two
// intervals), both in one beat. So an idle agent writes two keys every
// maxAge (with the defaults every third heartbeat) instead of reading its
// card and writing it and its presence key at every heartbeat, and no
// reader sees it offline: its presence key, which expires offlineAfter
// after its last put, and the last_heartbeat of its card are never older
// than maxAge plus one interval. An agent that dies disappears from the
// presence bucket at most offlineAfter after its last beat, and its card
// is stale at most offlineAfter after it.
//
// The card it returns is the card as this store last wrote or read it,
// with last_heartbeat now. When the renewal finds that another writer
// changed the card (marked it offline, say), it returns the card as it is
// now, whose heartbeat the caller sees is stale, and the caller writes
// the whole card again (UpdateCard). An agent without a card is an error
// wrapping driver.ErrUnknownAgent.
func (s *Store) Heartbeat(ctx context.Context, agentID string, now time.Time, maxAge time.Duration) (envelope.Card, error) {
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return envelope.Card{}, fmt.Errorf("heartbeat: %w", err)
	}
	if err := s.checkOpen(ctx); err != nil {
		return envelope.Card{}, fmt.Errorf("heartbeat of %q: %w", agentID, err)
	}
	b, known := s.beats.get(agentID)
	if !known {
		card, rev, err := s.readCard(ctx, agentID)
		if err != nil {
			return envelope.Card{}, fmt.Errorf("heartbeat of %q: %w", agentID, err)
		}
		b = beat{card: card, rev: rev}
	}
	stale := now.Sub(b.card.LastHeartbeat.Time) > maxAge || now.Sub(b.presenceAt) > maxAge
	if stale && b.card.Status != envelope.StatusOffline { // an offline card is the caller's to write

		renewed, err := s.renewCard(ctx, agentID, b, now)
		if err != nil {
			s.beats.forget(agentID)
			return envelope.Card{}, err
		}
		b = renewed
	}
	s.beats.set(agentID, b)
	card := b.card
	if now.After(card.LastHeartbeat.Time) {
		card.LastHeartbeat = envelope.NewTime(now)
	}
	return card, nil
}

// renewCard writes b's card with last_heartbeat now, if no one wrote it
// since b's revision, and puts the presence key. A card someone else
// changed is read again and returned as it is.
func (s *Store) renewCard(ctx context.Context, agentID string, b beat, now time.Time) (beat, error) {
	card := b.card
	card.LastHeartbeat = envelope.NewTime(now)
	raw, written, err := driver.FinishCard(card, agentID, now)
	if err != nil {
		return beat{}, fmt.Errorf("heartbeat of %q: %w", agentID, err)
	}
	rev, err := s.registry.Update(ctx, token(agentID), raw, b.rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
		cur, rev, err := s.readCard(ctx, agentID)
		if err != nil {
			return beat{}, fmt.Errorf("heartbeat of %q: %w", agentID, err)
		}
		return beat{card: cur, rev: rev}, nil
	}
	if err != nil {
		return beat{}, fmt.Errorf("heartbeat of %q: %w", agentID, err)
	}
	b = beat{card: written, rev: rev}
	if err := s.markPresence(ctx, written); err != nil {
		s.opts.Logger.Warn("presence not renewed", "agent", agentID, "err", err)
	} else {
		b.presenceAt = now
	}
	return b, nil
}
