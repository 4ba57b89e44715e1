package keys

import (
	"fmt"

	"github.com/nats-io/nkeys"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// OperatorKey returns the verifier of an operator public key
// (channels.mailbox.operatorKey: an nkeys operator key, "O...").
func OperatorKey(pub string) (nkeys.KeyPair, error) {
	if !nkeys.IsValidPublicOperatorKey(pub) {
		return nil, fmt.Errorf("%q is no nkeys operator public key (O...): make one with `switchboard keys new-operator`", clip(pub))
	}
	return nkeys.FromPublicKey(pub)
}

// Vouched reports whether card's key_signature is op's signature of its
// agent id and key (op nil: no operator key, never).
func Vouched(card envelope.Card, op nkeys.KeyPair) bool {
	if op == nil || card.PublicKey == "" || card.KeySignature == "" {
		return false
	}
	return envelope.VerifyCardSignature(card.AgentID, card.PublicKey, card.KeySignature, op) == nil
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
