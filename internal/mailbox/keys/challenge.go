package keys

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/nats-io/nkeys"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// challengeDomain starts what an agent signs to prove itself to the MCP
// server (switchboard mcp's register tool).
const challengeDomain = "switchboard-mcp-register-v1\n"

// proofPrefix starts a proof made with a key, where the register tool
// takes a token.
const proofPrefix = "key:"

// ErrBadKeyProof is wrapped when a key proof is malformed or does not
// verify.
var ErrBadKeyProof = errors.New("the proof is not a signature of the challenge by the agent's key")

// ChallengeStatement is what an agent signs to prove to the MCP server
// that it holds its key: the tag "switchboard-mcp-register-v1\n", the
// agent id, a line feed and the server's nonce.
func ChallengeStatement(agent, nonce string) []byte {
	return []byte(challengeDomain + agent + "\n" + nonce)
}

// Prove returns the proof that s (agent's key) signed the challenge
// nonce: "key:<nonce>:<signature in base64url>", what the register tool
// takes as its token.
func Prove(s envelope.Signer, agent, nonce string) (string, error) {
	sig, err := s.Sign(ChallengeStatement(agent, nonce))
	if err != nil {
		return "", err
	}
	return proofPrefix + nonce + ":" + base64.RawURLEncoding.EncodeToString(sig), nil
}

// IsKeyProof reports whether proof is one Prove makes (rather than a
// token).
func IsKeyProof(proof string) bool { return strings.HasPrefix(proof, proofPrefix) }

// ParseProof splits a proof Prove made into its nonce and signature.
func ParseProof(proof string) (nonce string, sig []byte, err error) {
	rest, ok := strings.CutPrefix(proof, proofPrefix)
	if !ok {
		return "", nil, fmt.Errorf("%w: want key:<nonce>:<signature>", ErrBadKeyProof)
	}
	nonce, enc, ok := strings.Cut(rest, ":")
	if !ok || nonce == "" {
		return "", nil, fmt.Errorf("%w: want key:<nonce>:<signature>", ErrBadKeyProof)
	}
	if sig, err = base64.RawURLEncoding.DecodeString(enc); err != nil || len(sig) != 64 {
		return "", nil, fmt.Errorf("%w: the signature is not 64 bytes in base64url", ErrBadKeyProof)
	}
	return nonce, sig, nil
}

// VerifyProof checks that sig is the signature of agent's challenge nonce
// by public key pub.
func VerifyProof(pub, agent, nonce string, sig []byte) error {
	kp, err := nkeys.FromPublicKey(pub)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrBadKeyProof, err)
	}
	if err := kp.Verify(ChallengeStatement(agent, nonce), sig); err != nil {
		return fmt.Errorf("%w of %s", ErrBadKeyProof, agent)
	}
	return nil
}
