package envelope

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"maps"

	"github.com/go-json-experiment/json/jsontext"
)

// This file is the signature of a message: its canonical form (what the
// signature covers), Sign and VerifySignature, and the statement an
// operator key signs to vouch for an agent's key (CardStatement).
// docs/format.md ("Signatures") is the contract.

// SignatureAlg is the algorithm of every signature: Ed25519 (RFC 8032),
// with public keys written as nkeys user keys ("U...", as NATS writes
// them).
const SignatureAlg = "ed25519"

// The domain tags that start what each kind of signature covers, so that a
// signature made for one purpose is never valid for another.
const (
	messageDomain = "switchboard-message-v1\n"
	cardDomain    = "switchboard-card-v1\n"
)

// MetaRedeliveredFrom is the metadata key of a copy of a set-aside message
// that the operator handed back (store.RedeliveryCopy): the id of the
// message it copies. The copy keeps the original's signature, and
// VerifySignature checks it as the original (see originals).
const MetaRedeliveredFrom = "redelivered_from"

// Errors of VerifySignature, for errors.Is.
var (
	// ErrUnsigned is returned for a message without a signature.
	ErrUnsigned = errors.New("message not signed")
	// ErrBadSignature is wrapped when the signature does not verify: the
	// message was changed after it was signed, or signed with another key.
	ErrBadSignature = errors.New("signature does not verify")
)

// Signature is a message's detached signature, the key "signature" of the
// message JSON (switchboard's addition; nanobot ignores it).
type Signature struct {
	// Alg is SignatureAlg.
	Alg string `json:"alg"`
	// Key is the signer's public key (an nkeys user key, "U..."). It says
	// which key signed; whether that key may speak for the sender is the
	// receiver's decision (its pinned key for the sender).
	Key string `json:"key"`
	// Sig is the 64-byte signature over SignedBytes, in base64url without
	// padding (RFC 4648 section 5).
	Sig string `json:"sig"`
}

// Signer makes signatures: an nkeys.KeyPair with its private key is one.
type Signer interface {
	PublicKey() (string, error)
	Sign(input []byte) ([]byte, error)
}

// Verifier checks signatures against one public key: an nkeys.KeyPair is
// one (made from a public key alone, or with its private key).
type Verifier interface {
	Verify(input, sig []byte) error
}

// Sign signs m with s: it sets m.Signature to the signature over m's
// canonical form (SignedBytes). A field changed afterwards (other than
// traceparent and tracestate) makes it fail to verify.
func Sign(m *Message, s Signer) error {
	m.Signature = nil
	data, err := SignedBytes(m)
	if err != nil {
		return err
	}
	sig, err := s.Sign(data)
	if err != nil {
		return fmt.Errorf("sign message %s: %w", m.ID, err)
	}
	pub, err := s.PublicKey()
	if err != nil {
		return fmt.Errorf("sign message %s: %w", m.ID, err)
	}
	m.Signature = &Signature{Alg: SignatureAlg, Key: pub, Sig: base64.RawURLEncoding.EncodeToString(sig)}
	return nil
}

// VerifySignature checks m's signature with v, the key m's sender is
// known by. It returns ErrUnsigned for a message without a signature and
// an error wrapping ErrBadSignature when the signature is malformed or
// does not verify. A copy the operator handed back (metadata
// redelivered_from) verifies as the message it copies.
func VerifySignature(m *Message, v Verifier) error {
	s := m.Signature
	if s == nil {
		return ErrUnsigned
	}
	if s.Alg != SignatureAlg {
		return fmt.Errorf("%w: algorithm %q, want %q", ErrBadSignature, s.Alg, SignatureAlg)
	}
	sig, err := base64.RawURLEncoding.DecodeString(s.Sig)
	if err != nil || len(sig) != 64 {
		return fmt.Errorf("%w: sig is not 64 bytes in base64url", ErrBadSignature)
	}
	for _, o := range originals(m) {
		data, err := SignedBytes(o)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrBadSignature, err)
		}
		if v.Verify(data, sig) == nil {
			return nil
		}
	}
	return fmt.Errorf("%w: the message was changed after it was signed, or not signed by this key", ErrBadSignature)
}

// originals returns the forms m may have been signed in: m itself and,
// for a copy the operator handed back (store.RedeliveryCopy: a fresh id,
// the original's id in metadata redelivered_from, thread_id the
// original's, or its id when it had none), the original.
func originals(m *Message) []*Message {
	from, ok := m.Metadata[MetaRedeliveredFrom].(string)
	if !ok || from == "" {
		return []*Message{m}
	}
	o := *m
	o.ID = from
	o.Metadata = maps.Clone(m.Metadata)
	delete(o.Metadata, MetaRedeliveredFrom)
	out := []*Message{m, &o}
	if o.ThreadID == from { // the original may have had no thread id
		bare := o
		bare.ThreadID = ""
		out = append(out, &bare)
	}
	return out
}

// SignedBytes returns what the signature of m covers: the tag
// "switchboard-message-v1\n" followed by m's canonical form, which is the
// JSON object Encode writes for m, without the members signature,
// traceparent and tracestate (the NATS store fills those two from the
// message's headers), without any object member whose value is null (at
// any depth: a reader cannot tell null from missing), in the JSON
// Canonicalization Scheme (RFC 8785: members sorted, no white space,
// numbers as IEEE doubles in their shortest form, strings minimally
// escaped). Only the keys this package reads are in it: a key it does
// not know is dropped when a message is decoded, and is not signed.
func SignedBytes(m *Message) ([]byte, error) {
	c := *m
	c.Signature, c.Traceparent, c.Tracestate = nil, "", ""
	raw, err := EncodeCompact(&c)
	if err != nil {
		return nil, fmt.Errorf("canonical form of %s: %w", m.ID, err)
	}
	out := bytes.NewBufferString(messageDomain)
	if err := writeWithoutNulls(out, raw); err != nil {
		return nil, fmt.Errorf("canonical form of %s: %w", m.ID, err)
	}
	v := jsontext.Value(out.Bytes()[len(messageDomain):])
	if err := v.Canonicalize(); err != nil {
		return nil, fmt.Errorf("canonical form of %s: %w", m.ID, err)
	}
	return append([]byte(messageDomain), v...), nil
}

// writeWithoutNulls copies the JSON value raw to w, leaving out every
// object member whose value is null.
func writeWithoutNulls(w io.Writer, raw []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	enc := jsontext.NewEncoder(w)
	for {
		kind, n := dec.StackIndex(dec.StackDepth())
		if kind == '{' && n%2 == 0 && dec.PeekKind() == '"' { // a member's name
			name, err := dec.ReadToken()
			if err != nil {
				return err
			}
			name = name.Clone()
			if dec.PeekKind() == 'n' {
				if _, err := dec.ReadToken(); err != nil {
					return err
				}
				continue
			}
			if err := enc.WriteToken(name); err != nil {
				return err
			}
			continue
		}
		tok, err := dec.ReadToken()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := enc.WriteToken(tok); err != nil {
			return err
		}
	}
}

// CardStatement is what an operator key signs to vouch that publicKey is
// agent agentID's key (the card's key_signature): the tag
// "switchboard-card-v1\n", the agent id, a line feed and the public key.
func CardStatement(agentID, publicKey string) []byte {
	return []byte(cardDomain + agentID + "\n" + publicKey)
}

// SignCard sets card.KeySignature to op's signature over the card's
// statement (CardStatement of its AgentID and PublicKey).
func SignCard(card *Card, op Signer) error {
	if card.PublicKey == "" {
		return fmt.Errorf("card of %s has no public key to vouch for", card.AgentID)
	}
	sig, err := op.Sign(CardStatement(card.AgentID, card.PublicKey))
	if err != nil {
		return err
	}
	card.KeySignature = base64.RawURLEncoding.EncodeToString(sig)
	return nil
}

// VerifyCardSignature checks that sig (a card's key_signature) is op's
// signature over CardStatement(agentID, publicKey). It returns an error
// wrapping ErrBadSignature when it is not.
func VerifyCardSignature(agentID, publicKey, sig string, op Verifier) error {
	raw, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || len(raw) != 64 || op.Verify(CardStatement(agentID, publicKey), raw) != nil {
		return fmt.Errorf("%w: key_signature of %s is not the operator key's signature of its key", ErrBadSignature, agentID)
	}
	return nil
}
