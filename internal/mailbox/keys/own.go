package keys

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Own is what PinOwn found of an agent's own key.
type Own struct {
	// Change is NoChange (the key is the one pinned), Pinned (pinned now:
	// the agent's first start), Rotated (a new key the operator key
	// vouched for, pinned now) or ChangeRefused (another key is pinned:
	// other agents refuse what this one signs until the operator trusts
	// the new key).
	Change Change
	// Pin is the pin that holds now.
	Pin *Pin
	// KeySignature is the operator's signature of the key recorded for the
	// agent (keys sign-card), for its card; "" when none is recorded for
	// this key.
	KeySignature string
}

// PinOwn pins key as agent's own unless a key is pinned for it already,
// as an agent does when it starts; a changed key is pinned only when the
// operator key of policy vouches for it. It also returns the operator's
// signature recorded for the key, which the agent puts on its card.
func PinOwn(ctx context.Context, st Store, agent string, key *Key, policy Policy, now time.Time) (Own, error) {
	var own Own
	e, err := LoadEndorsement(ctx, st, agent)
	if err != nil && !errors.Is(err, store.ErrCorruptState) {
		return own, err
	}
	if e != nil && e.PublicKey == key.Public {
		own.KeySignature = e.KeySignature
	}
	pin, err := LoadPin(ctx, st, agent)
	if err != nil && !errors.Is(err, store.ErrCorruptState) {
		return own, err
	}
	if err == nil && pin == nil {
		if pin, err = CreatePin(ctx, st, Pin{AgentID: agent, PublicKey: key.Public, PinnedAt: now.UTC(), By: ByItself}); err != nil {
			return own, err
		}
		if pin.PublicKey == key.Public {
			own.Change, own.Pin = Pinned, pin
			return own, nil
		}
	}
	if pin != nil && pin.PublicKey == key.Public {
		own.Pin = pin
		return own, nil
	}
	if policy.OperatorKey != "" && own.KeySignature != "" {
		op, err := OperatorKey(policy.OperatorKey)
		card := envelope.Card{AgentID: agent, PublicKey: key.Public, KeySignature: own.KeySignature}
		if err == nil && Vouched(card, op) {
			p := Pin{AgentID: agent, PublicKey: key.Public, PinnedAt: now.UTC(), By: ByOperatorKey}
			if err := SavePin(ctx, st, p); err != nil {
				return own, err
			}
			own.Change, own.Pin = Rotated, &p
			return own, nil
		}
	}
	own.Change, own.Pin = ChangeRefused, pin
	return own, nil
}
