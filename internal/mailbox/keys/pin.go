package keys

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nkeys"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// The state records of an agent this package keeps.
const (
	// pinRecord is the key pinned for the agent.
	pinRecord = "pin"
	// endorsementRecord is the operator key's signature of the agent's
	// key (keys sign-card), which the agent copies into its card.
	endorsementRecord = "key-signature"
)

// Who pinned a key (Pin.By).
const (
	// ByItself: the agent, at its first start.
	ByItself = "itself"
	// ByOperator: the operator, with `switchboard agents trust`.
	ByOperator = "operator"
	// ByOperatorKey: a change the operator key vouched for (the card's
	// key_signature).
	ByOperatorKey = "operator key"
	// byFirstSight starts the By of a key pinned by a receiver that saw
	// the card's key first: "first sight by <receiver>".
	byFirstSight = "first sight by "
)

// Store is what this package needs of the mailbox store: the agents'
// state records and cards (*store.Store is one).
type Store interface {
	store.StateStore
	CreateState(ctx context.Context, agentID, key string, data []byte) error
	Card(ctx context.Context, agentID string) (envelope.Card, error)
}

var _ Store = (*store.Store)(nil)

// Pin is the key an agent is known by: messages from it are believed only
// when that key signed them.
type Pin struct {
	AgentID   string    `json:"agent_id"`
	PublicKey string    `json:"public_key"`
	PinnedAt  time.Time `json:"pinned_at"`
	// By says who pinned it: ByItself, ByOperator, ByOperatorKey, or
	// "first sight by <agent>".
	By string `json:"by"`
}

// LoadPin returns the key pinned for agent, or nil when there is none.
func LoadPin(ctx context.Context, st store.StateStore, agent string) (*Pin, error) {
	data, err := st.LoadState(ctx, agent, pinRecord)
	if err != nil || data == nil {
		return nil, err
	}
	var p Pin
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("pinned key of %s: %w: %w", agent, store.ErrCorruptState, err)
	}
	if !nkeys.IsValidPublicUserKey(p.PublicKey) {
		return nil, fmt.Errorf("pinned key of %s: %w: %q is no nkeys user key", agent, store.ErrCorruptState, p.PublicKey)
	}
	p.AgentID = agent
	return &p, nil
}

// CreatePin pins p unless a key is pinned for its agent already, and
// returns the pin that holds: p, or the one another process made first.
func CreatePin(ctx context.Context, st Store, p Pin) (*Pin, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	err = st.CreateState(ctx, p.AgentID, pinRecord, data)
	if errors.Is(err, store.ErrStateExists) {
		return LoadPin(ctx, st, p.AgentID)
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// SavePin pins p for its agent, replacing the key pinned before.
func SavePin(ctx context.Context, st store.StateStore, p Pin) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return st.SaveState(ctx, p.AgentID, pinRecord, data)
}

// Endorsement is the operator key's signature of an agent's key, as
// `switchboard keys sign-card` records it for the agent to put in its
// card.
type Endorsement struct {
	PublicKey    string    `json:"public_key"`
	KeySignature string    `json:"key_signature"`
	SignedAt     time.Time `json:"signed_at"`
}

// LoadEndorsement returns the operator's signature recorded for agent,
// or nil.
func LoadEndorsement(ctx context.Context, st store.StateStore, agent string) (*Endorsement, error) {
	data, err := st.LoadState(ctx, agent, endorsementRecord)
	if err != nil || data == nil {
		return nil, err
	}
	var e Endorsement
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("key signature of %s: %w: %w", agent, store.ErrCorruptState, err)
	}
	return &e, nil
}

// SaveEndorsement records e for agent.
func SaveEndorsement(ctx context.Context, st store.StateStore, agent string, e Endorsement) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return st.SaveState(ctx, agent, endorsementRecord, data)
}

// KeyState is what a listing shows of an agent's key: its card's key
// beside the pinned one.
type KeyState string

// The states of an agent's key.
const (
	// KeyNone: the card has no key and none is pinned (nanobot, an older
	// switchboard): its messages come unsigned.
	KeyNone KeyState = "none"
	// KeyUnpinned: the card has a key that nobody pinned yet.
	KeyUnpinned KeyState = "unpinned"
	// KeyPinned: the card's key is the pinned one.
	KeyPinned KeyState = "pinned"
	// KeyChanged: the card's key is not the pinned one: its signed
	// messages are refused until `switchboard agents trust` (or the
	// operator key vouches for the new key).
	KeyChanged KeyState = "changed"
	// KeyPinnedOnly: a key is pinned, the card names none (an agent that
	// lost its card, or a card written by something else).
	KeyPinnedOnly KeyState = "pinned, not on card"
)

// StateOf compares card's key with pin (nil: none).
func StateOf(card envelope.Card, pin *Pin) KeyState {
	switch {
	case pin == nil && card.PublicKey == "":
		return KeyNone
	case pin == nil:
		return KeyUnpinned
	case card.PublicKey == "":
		return KeyPinnedOnly
	case card.PublicKey == pin.PublicKey:
		return KeyPinned
	}
	return KeyChanged
}

// Trust pins the key agent's card carries now (accepting a rotation), as
// the operator does with `switchboard agents trust`. When want is not
// empty, the card's key must be want. It returns the pin replaced (nil:
// none) and the new one.
func Trust(ctx context.Context, st Store, agent, want string, now time.Time) (old *Pin, pin Pin, err error) {
	card, err := st.Card(ctx, agent)
	if err != nil {
		return nil, Pin{}, err
	}
	if card.PublicKey == "" {
		return nil, Pin{}, fmt.Errorf("the card of %s names no key: start the agent (a switchboard agent publishes its key in its card)", agent)
	}
	if !nkeys.IsValidPublicUserKey(card.PublicKey) {
		return nil, Pin{}, fmt.Errorf("the card of %s names %q, which is no nkeys user key", agent, card.PublicKey)
	}
	if want != "" && want != card.PublicKey {
		return nil, Pin{}, fmt.Errorf("the card of %s names key %s, not %s: nothing trusted", agent, card.PublicKey, want)
	}
	if old, err = LoadPin(ctx, st, agent); err != nil && !errors.Is(err, store.ErrCorruptState) {
		return nil, Pin{}, err
	}
	pin = Pin{AgentID: agent, PublicKey: card.PublicKey, PinnedAt: now.UTC(), By: ByOperator}
	return old, pin, SavePin(ctx, st, pin)
}
