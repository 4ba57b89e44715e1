package mcpserver_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mcpserver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

const claudeToken = "claude-token-0123456789"

// tokenDir returns a folder of agent tokens holding claude's.
func tokenDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "claude.token"), []byte(claudeToken+"\n"), 0o600))
	return dir
}

// TestRegisterNeedsProof: with an AgentAuth, a client registers as an
// agent with a token configured only with that token; as a known agent
// with none configured (its process is down) not at all; as a new agent
// it may, and then that agent is known.
func TestRegisterNeedsProof(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := testkit.Ctx(t)
	_, err := r.store().UpdateCard(ctx, "coder", func(c *envelope.Card) { c.AgentID = "coder" })
	require.NoError(t, err)
	auth := mcpserver.TokenDir{Dir: tokenDir(t)}

	c := connect(t, r.server(auth))
	text, isErr := c.try("register", map[string]any{"agent_id": "coder"})
	assert.True(t, isErr)
	assert.Contains(t, text, "agent coder exists, and registering as it needs its token")
	text, isErr = c.try("register", map[string]any{"agent_id": "claude"})
	assert.True(t, isErr)
	assert.Contains(t, text, "give the token of claude")
	text, isErr = c.try("register", map[string]any{"agent_id": "claude", "token": "claude-token-wrong-guess"})
	assert.True(t, isErr)
	assert.Contains(t, text, "not the one configured")
	text, isErr = c.try("register", map[string]any{"agent_id": "claude", "token": claudeToken})
	require.False(t, isErr, text)
	assert.Contains(t, text, "registered as claude")

	// A new agent is claimed by the first client; once it has a card, a
	// later registration needs proof like any other.
	newbie := r.server(auth)
	text, isErr = connect(t, newbie).try("register", map[string]any{"agent_id": "newbie"})
	require.False(t, isErr, text)
	require.NoError(t, newbie.Close(ctx))
	text, isErr = connect(t, r.server(auth)).try("register", map[string]any{"agent_id": "newbie"})
	assert.True(t, isErr)
	assert.Contains(t, text, "agent newbie exists")

	// Mail sent to an agent that never registered is its too.
	r.deliver("bob", "ghost", "for ghost only", "", "")
	text, isErr = connect(t, r.server(auth)).try("register", map[string]any{"agent_id": "ghost"})
	assert.True(t, isErr)
	assert.Contains(t, text, "agent ghost exists")

	// Without an AgentAuth (stdio) the client is trusted.
	text, isErr = connect(t, r.server(nil)).try("register", map[string]any{"agent_id": "coder"})
	require.False(t, isErr, text)
}

func TestTokenDirVerify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := tokenDir(t)
	d := mcpserver.TokenDir{Dir: dir}
	require.NoError(t, d.Verify(ctx, "claude", claudeToken))
	assert.ErrorIs(t, d.Verify(ctx, "claude", ""), mcpserver.ErrBadProof)
	assert.ErrorIs(t, d.Verify(ctx, "claude", claudeToken+"x"), mcpserver.ErrBadProof)
	assert.ErrorIs(t, d.Verify(ctx, "codex", "anything-at-all-here"), mcpserver.ErrNoCredential)
	assert.ErrorIs(t, mcpserver.TokenDir{}.Verify(ctx, "claude", claudeToken), mcpserver.ErrNoCredential)
	assert.Error(t, d.Verify(ctx, "../claude", claudeToken), "an id that is no agent id names no file")
	if runtime.GOOS != "windows" {
		require.NoError(t, os.Chmod(filepath.Join(dir, "claude.token"), 0o644))
		err := d.Verify(ctx, "claude", claudeToken)
		assert.ErrorContains(t, err, "chmod 600", "a token others can read proves nothing")
		assert.NotErrorIs(t, err, mcpserver.ErrNoCredential)
	}
}
