package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/token"
)

// Errors of an AgentAuth.
var (
	// ErrNoCredential is wrapped when nothing is configured to prove that
	// a client is the agent it names: a new agent may then be claimed by
	// the first client, an existing one may not (see Options.Auth).
	ErrNoCredential = errors.New("no credential is configured for the agent")
	// ErrBadProof is wrapped when the proof a client gave is missing or
	// wrong.
	ErrBadProof = errors.New("the agent's token is missing or wrong")
)

// AgentAuth decides whether a client that registers may be the agent it
// names with a token configured for the agent (TokenDir). A proof made
// with the agent's signing key ("key:..."; keyproof.go) is checked by the
// server itself, whatever the AgentAuth.
type AgentAuth interface {
	// Verify returns nil when proof shows that the client is agent id, an
	// error wrapping ErrNoCredential when nothing is configured for id,
	// and one wrapping ErrBadProof when proof does not match what is.
	Verify(ctx context.Context, id, proof string) error
}

// TokenDir is an AgentAuth that keeps one token per agent in a folder:
// the file <Dir>/<agent id>.token, readable by its owner only (see
// token.Read). An empty Dir configures no agent.
type TokenDir struct{ Dir string }

var _ AgentAuth = TokenDir{}

// Verify implements AgentAuth.
func (d TokenDir) Verify(_ context.Context, id, proof string) error {
	if d.Dir == "" {
		return fmt.Errorf("%w (no folder of agent tokens: --agent-tokens)", ErrNoCredential)
	}
	if err := envelope.ValidateAgentID(id); err != nil {
		return err
	}
	path := filepath.Join(d.Dir, id+".token")
	want, err := token.Read(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w (no file %s)", ErrNoCredential, path)
	case err != nil:
		return err
	case proof == "":
		return fmt.Errorf("%w: give the token of %s (the register tool's token argument)", ErrBadProof, id)
	case !token.Equal(proof, want):
		return fmt.Errorf("%w: the token given for %s is not the one configured", ErrBadProof, id)
	}
	return nil
}

// authorize decides whether a client may register as c.AgentID with
// proof (see Options.Auth): the proof must be a signature by the agent's
// key of a nonce this server gave (keyproof.go) or match what is
// configured for the agent, and an agent for which nothing is configured may be claimed
// only when the mailbox does not know it yet (no card, no inbox), so that
// no client takes over an agent whose process is down.
func (s *Server) authorize(ctx context.Context, id, proof string) error {
	if s.opts.Auth == nil {
		return nil
	}
	if keys.IsKeyProof(proof) {
		return s.verifyKeyProof(ctx, id, proof)
	}
	err := s.opts.Auth.Verify(ctx, id, proof)
	if !errors.Is(err, ErrNoCredential) {
		return err
	}
	known, kerr := s.known(ctx, id)
	switch {
	case kerr != nil:
		return fmt.Errorf("register as %s: cannot tell whether the agent exists: %w", id, kerr)
	case known:
		return fmt.Errorf("%w: agent %s exists, and registering as it needs its token: %w; or start `switchboard mcp --agent %s` yourself",
			ErrBadProof, id, err, id)
	}
	return nil
}

// known reports whether the mailbox knows agent id: it has a card, or an
// inbox (mail sent to it before it registered).
func (s *Server) known(ctx context.Context, id string) (bool, error) {
	st, err := s.openStore(id)
	if err != nil {
		return false, err
	}
	defer st.Close()
	_, err = st.Card(ctx, id)
	switch {
	case err == nil:
		return true, nil
	case !errors.Is(err, store.ErrUnknownAgent):
		return false, err
	}
	has, err := st.HasInbox(id)
	if errors.Is(err, store.ErrNotSupported) {
		return false, nil
	}
	return has, err
}

// openStore opens the store of agent id's settings, to read it.
func (s *Server) openStore(id string) (*store.Store, error) {
	cfg, err := s.opts.Config(id)
	if err != nil {
		return nil, err
	}
	cfg.AgentID = id
	sc := cfg.StoreConfig()
	sc.Logger = s.log
	return store.Open(cfg.Backend, sc)
}
