package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
)

// This file is the other proof a registering client may give (besides a
// token configured for the agent): that it holds the agent's signing key.
// The challenge tool hands out a nonce; the client signs it with the
// agent's key (`switchboard keys prove ID NONCE`, run where the key is)
// and gives the result, "key:<nonce>:<signature>", as register's token.
// The signature is checked against the key pinned for the agent (the key
// its messages are believed by), or, for an agent never pinned, the key
// on its card.

// challengeTTL is how long a nonce the challenge tool gave stays usable.
const challengeTTL = 5 * time.Minute

// maxChallenges bounds the nonces outstanding: the oldest go first.
const maxChallenges = 64

type challengeOut struct {
	Nonce     string    `json:"nonce"`
	ExpiresAt time.Time `json:"expires_at"`
	Prove     string    `json:"prove"`
}

func (s *Server) challenge(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return nil, nil, err
	}
	nonce := hex.EncodeToString(b) // never starts with "-": `keys prove ID NONCE` takes it as an argument, not a flag
	now := s.now()
	s.mu.Lock()
	if s.nonces == nil {
		s.nonces = map[string]time.Time{}
	}
	for n, exp := range s.nonces {
		if !now.Before(exp) || len(s.nonces) >= maxChallenges {
			delete(s.nonces, n)
		}
	}
	s.nonces[nonce] = now.Add(challengeTTL)
	s.mu.Unlock()
	return result(challengeOut{Nonce: nonce, ExpiresAt: now.Add(challengeTTL).UTC(),
		Prove: "run `switchboard keys prove <your agent id> " + nonce + "` where your agent's key is, and give what it prints as register's token"})
}

// takeNonce uses up nonce, reporting whether this server gave it and it
// has not expired nor been used.
func (s *Server) takeNonce(nonce string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.nonces[nonce]
	delete(s.nonces, nonce)
	return ok && s.now().Before(exp)
}

// verifyKeyProof checks a proof made with keys.Prove: a nonce this server
// gave, signed by the key agent id is known by.
func (s *Server) verifyKeyProof(ctx context.Context, id, proof string) error {
	nonce, sig, err := keys.ParseProof(proof)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadProof, err)
	}
	if !s.takeNonce(nonce) {
		return fmt.Errorf("%w: the nonce was not given by this server's challenge tool, was used already, or expired (call challenge again)", ErrBadProof)
	}
	pub, err := s.knownKey(ctx, id)
	if err != nil {
		return err
	}
	if err := keys.VerifyProof(pub, id, nonce, sig); err != nil {
		return fmt.Errorf("%w: %w", ErrBadProof, err)
	}
	return nil
}

// knownKey is the key agent id is known by: the one pinned for it, else
// the one on its card.
func (s *Server) knownKey(ctx context.Context, id string) (string, error) {
	st, err := s.openStore(id)
	if err != nil {
		return "", err
	}
	defer st.Close()
	pin, err := keys.LoadPin(ctx, st, id)
	if err != nil {
		return "", err
	}
	if pin != nil {
		return pin.PublicKey, nil
	}
	card, err := st.Card(ctx, id)
	if err != nil && !errors.Is(err, store.ErrUnknownAgent) {
		return "", err
	}
	if card.PublicKey == "" {
		return "", fmt.Errorf("%w: no key is known for %s (none pinned, none on a card): give its token instead", ErrBadProof, id)
	}
	return card.PublicKey, nil
}
