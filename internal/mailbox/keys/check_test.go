package keys_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
)

func newStore(t *testing.T) *store.Store {
	t.Helper()
	st := store.New(memstore.New(memstore.Options{}), nil)
	t.Cleanup(func() { st.Close() })
	return st
}

// agentWithKey makes agent's key in its state, pins it and puts it on
// its card, as the agent does at its first start.
func agentWithKey(t *testing.T, st *store.Store, agent string) *keys.Key {
	t.Helper()
	ctx := context.Background()
	key, err := keys.Load(ctx, st, agent, keys.Source{Create: true})
	require.NoError(t, err)
	assert.Equal(t, keys.OriginStore, key.Origin)
	own, err := keys.PinOwn(ctx, st, agent, key, keys.Policy{}, time.Now())
	require.NoError(t, err)
	assert.Equal(t, keys.Pinned, own.Change)
	_, err = st.UpdateCard(ctx, agent, func(c *envelope.Card) { c.AgentID, c.PublicKey = agent, key.Public })
	require.NoError(t, err)
	return key
}

func message(from string) *envelope.Message {
	return &envelope.Message{ID: "0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", From: from, To: "coder", Type: envelope.TypeMessage,
		Timestamp: envelope.NewTime(time.Now()), Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("hi")}}}
}

// TestCheckerVerdicts: every row of the receiver's table
// (docs/security.md, "What the receiver does").
func TestCheckerVerdicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newStore(t)
	lead := agentWithKey(t, st, "lead")
	c := keys.NewChecker(st, keys.Policy{}, keys.CheckerOptions{Self: "coder"})

	signed := message("lead")
	require.NoError(t, envelope.Sign(signed, lead))
	res, err := c.Check(ctx, signed)
	require.NoError(t, err)
	assert.Equal(t, keys.Verified, res.Verdict)

	tampered := *signed
	tampered.Content = envelope.Content{Parts: []envelope.Part{envelope.TextPart("approve")}}
	res, err = c.Check(ctx, &tampered)
	require.NoError(t, err)
	assert.Equal(t, keys.Refused, res.Verdict)
	assert.Contains(t, res.Reason, "forged: ")

	other, err := nkeys.CreateUser()
	require.NoError(t, err)
	byOther := message("lead")
	require.NoError(t, envelope.Sign(byOther, other))
	res, err = c.Check(ctx, byOther)
	require.NoError(t, err)
	assert.Equal(t, keys.Refused, res.Verdict)
	assert.Equal(t, keys.ChangeRefused, res.Change)

	res, err = c.Check(ctx, message("lead"))
	require.NoError(t, err)
	assert.Equal(t, keys.Refused, res.Verdict, "unsigned from an id whose key is pinned")

	res, err = c.Check(ctx, message("nano"))
	require.NoError(t, err)
	assert.Equal(t, keys.Unverified, res.Verdict, "unsigned from an id without a pinned key")
	assert.Equal(t, "unsigned", res.Reason)

	// A signature with no card to find the key on is no proof either.
	ghost := message("ghost")
	require.NoError(t, envelope.Sign(ghost, other))
	res, err = c.Check(ctx, ghost)
	require.NoError(t, err)
	assert.Equal(t, keys.Unverified, res.Verdict)

	// Garbage in the signature: refused, never a panic.
	for _, sig := range []envelope.Signature{{Alg: "none", Key: lead.Public, Sig: ""}, {Alg: "ed25519", Key: lead.Public, Sig: "!!"},
		{Alg: "ed25519", Key: "not-a-key", Sig: signed.Signature.Sig}} {
		m := *signed
		m.Signature = &sig
		res, err = c.Check(ctx, &m)
		require.NoError(t, err)
		assert.Equal(t, keys.Refused, res.Verdict, "%+v", sig)
	}

	none := []string{}
	strict := keys.NewChecker(st, keys.Policy{AllowUnsigned: &none}, keys.CheckerOptions{Self: "coder"})
	res, err = strict.Check(ctx, message("nano"))
	require.NoError(t, err)
	assert.Equal(t, keys.Refused, res.Verdict, "allowUnsigned: [] takes nothing unsigned")
	star := []string{"*"}
	open := keys.NewChecker(st, keys.Policy{AllowUnsigned: &star}, keys.CheckerOptions{Self: "coder"})
	res, err = open.Check(ctx, message("lead"))
	require.NoError(t, err)
	assert.Equal(t, keys.Unverified, res.Verdict, `"*" takes unsigned even from a pinned id`)
}

// TestTrustAcceptsRotation: a new key on the card is refused until Trust
// pins it; a checker sees it at once (no wait for its cache).
func TestTrustAcceptsRotation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newStore(t)
	agentWithKey(t, st, "lead")
	c := keys.NewChecker(st, keys.Policy{}, keys.CheckerOptions{Self: "coder"})
	next, err := nkeys.CreateUser()
	require.NoError(t, err)
	pub, _ := next.PublicKey()
	_, err = st.UpdateCard(ctx, "lead", func(card *envelope.Card) { card.PublicKey = pub })
	require.NoError(t, err)
	m := message("lead")
	require.NoError(t, envelope.Sign(m, next))
	res, err := c.Check(ctx, m)
	require.NoError(t, err)
	assert.Equal(t, keys.Refused, res.Verdict)

	old, pin, err := keys.Trust(ctx, st, "lead", "", time.Now())
	require.NoError(t, err)
	assert.NotEqual(t, pub, old.PublicKey)
	assert.Equal(t, pub, pin.PublicKey)
	res, err = c.Check(ctx, m)
	require.NoError(t, err)
	assert.Equal(t, keys.Verified, res.Verdict)
}

// TestKeyFile: a key file is made 0600 in a folder 0700, loaded again as
// the same key, and refused when others may read it.
func TestKeyFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "keys", "coder.nk")
	_, err := keys.Load(ctx, nil, "coder", keys.Source{File: path})
	assert.ErrorIs(t, err, keys.ErrNoKey)
	made, err := keys.Load(ctx, nil, "coder", keys.Source{File: path, Create: true})
	require.NoError(t, err)
	again, err := keys.Load(ctx, nil, "coder", keys.Source{File: path})
	require.NoError(t, err)
	assert.Equal(t, made.Public, again.Public)
	if runtime.GOOS == "windows" {
		return
	}
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	dir, err := os.Stat(filepath.Dir(path))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), dir.Mode().Perm())
	require.NoError(t, os.Chmod(path, 0o644))
	_, err = keys.Load(ctx, nil, "coder", keys.Source{File: path})
	assert.ErrorContains(t, err, "chmod 600")
}
