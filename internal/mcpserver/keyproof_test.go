package mcpserver_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mcpserver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestRegisterWithKeyProof: a client proves it is an existing agent with
// the agent's key, signing a nonce of the challenge tool; a nonce used
// once, one the server never gave, or a signature by another key is
// refused, and so is a proof for an agent whose pinned key is another.
func TestRegisterWithKeyProof(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	ctx := testkit.Ctx(t)
	key, err := keys.Load(ctx, nil, "coder", keys.Source{File: filepath.Join(t.TempDir(), "coder.nk"), Create: true})
	require.NoError(t, err)
	_, err = r.store().UpdateCard(ctx, "coder", func(c *envelope.Card) { c.AgentID, c.PublicKey = "coder", key.Public })
	require.NoError(t, err)
	_, err = keys.CreatePin(ctx, r.store(), keys.Pin{AgentID: "coder", PublicKey: key.Public, PinnedAt: time.Now(), By: keys.ByItself})
	require.NoError(t, err)
	auth := mcpserver.TokenDir{Dir: tokenDir(t)} // no token for coder

	c := connect(t, r.server(auth))
	nonce := func() string {
		text, isErr := c.try("challenge", nil)
		require.False(t, isErr, text)
		var out struct{ Nonce string }
		require.NoError(t, json.Unmarshal([]byte(text), &out))
		require.NotEmpty(t, out.Nonce)
		return out.Nonce
	}

	other, err := nkeys.CreateUser()
	require.NoError(t, err)
	forged, err := keys.Prove(other, "coder", nonce())
	require.NoError(t, err)
	text, isErr := c.try("register", map[string]any{"agent_id": "coder", "token": forged})
	assert.True(t, isErr)
	assert.Contains(t, text, "not a signature of the challenge by the agent's key")

	made, err := keys.Prove(key, "coder", "a-nonce-of-my-own-choosing")
	require.NoError(t, err)
	text, isErr = c.try("register", map[string]any{"agent_id": "coder", "token": made})
	assert.True(t, isErr)
	assert.Contains(t, text, "not given by this server")

	n := nonce()
	asOther, err := keys.Prove(key, "claude", n) // signed for another id
	require.NoError(t, err)
	text, isErr = c.try("register", map[string]any{"agent_id": "coder", "token": asOther})
	assert.True(t, isErr, text)

	good, err := keys.Prove(key, "coder", nonce())
	require.NoError(t, err)
	text, isErr = c.try("register", map[string]any{"agent_id": "coder", "token": good})
	require.False(t, isErr, text)
	assert.Contains(t, text, "registered as coder")

	// The same proof again, on another session: the nonce is used up.
	text, isErr = connect(t, r.server(auth)).try("register", map[string]any{"agent_id": "coder", "token": good})
	assert.True(t, isErr)
	assert.Contains(t, text, "not given by this server")

	// An agent with no key known cannot be proved with one.
	_, err = r.store().UpdateCard(ctx, "nokey", func(c *envelope.Card) { c.AgentID = "nokey" })
	require.NoError(t, err)
	c2 := connect(t, r.server(auth))
	text, isErr = c2.try("challenge", nil)
	require.False(t, isErr, text)
	var out struct{ Nonce string }
	require.NoError(t, json.Unmarshal([]byte(text), &out))
	p, err := keys.Prove(key, "nokey", out.Nonce)
	require.NoError(t, err)
	text, isErr = c2.try("register", map[string]any{"agent_id": "nokey", "token": p})
	assert.True(t, isErr)
	assert.Contains(t, text, "no key is known for nokey")
}
