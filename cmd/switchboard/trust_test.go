package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// startStop starts `recv agent` and stops it once it listens: the agent
// has made its key (at the first start), pinned it and put it on its card.
func (s *sandbox) startStop(agent string) string {
	s.t.Helper()
	p := s.start("recv", agent)
	p.awaitStderr("listening as " + agent)
	p.signal(os.Interrupt)
	require.Equal(s.t, 0, p.wait(), p.stderrSoFar())
	return p.stderrSoFar()
}

// agentKey returns the key_state and public key agents --json gives agent.
func (s *sandbox) agentKey(agent string) (state, key, pinned string) {
	s.t.Helper()
	for _, l := range decodeLines(s.t, s.ok("agents", "--json")) {
		if l["agent_id"] == agent {
			state, _ = l["key_state"].(string)
			key, _ = l["public_key"].(string)
			pinned, _ = l["pinned_key"].(string)
		}
	}
	return state, key, pinned
}

// TestKeyChangeRefusedUntilTrusted: lead loses its key (its state folder)
// and makes another at its next start. What it signs with the new key is
// set aside by coder, with the reason, and agents shows the change, until
// the operator runs `agents trust lead`; then coder takes it, verified.
func TestKeyChangeRefusedUntilTrusted(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.startStop("lead")
	state, first, pinned := s.agentKey("lead")
	assert.Equal(t, "pinned", state)
	assert.Equal(t, first, pinned)
	info, err := os.Stat(filepath.Join(s.root, "lead", "state", "signing-key.json"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the key is the agent's own, 0600")

	recv := s.start("recv", "coder", "--json")
	recv.awaitStderr("listening as coder")
	next := func() map[string]any {
		var line map[string]any
		require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "a message")), &line))
		return line["mailbox"].(map[string]any)
	}
	before := s.sendID("--from", "lead", "--to", "coder", "--text", "before")
	md := next()
	assert.Equal(t, before, md["message_id"])
	assert.Nil(t, md["unverified"], "signed by the pinned key")

	require.NoError(t, os.Remove(filepath.Join(s.root, "lead", "state", "signing-key.json")))
	assert.Contains(t, s.startStop("lead"), "this agent's signing key is not the one pinned for it")
	state, second, pinned := s.agentKey("lead")
	assert.Equal(t, "changed", state)
	assert.NotEqual(t, first, second)
	assert.Equal(t, first, pinned)
	assert.Regexp(t, `(?m)^lead \(unverified\) +offline, key changed `, s.ok("agents"))

	refused := s.sendID("--from", "lead", "--to", "coder", "--text", "after the change")
	var reason string
	deadline := time.Now().Add(testkit.WaitLimit)
	for reason == "" {
		for _, l := range decodeLines(t, s.ok("dead", "coder", "--json")) {
			if l["id"] == refused {
				reason = l["reason"].(string)
			}
		}
		require.True(t, time.Now().Before(deadline), "coder did not set aside what the changed key signed")
	}
	assert.Equal(t, "unverified: signed with key "+second+", not the key pinned for lead ("+first+
		"); a changed key is refused until `switchboard agents trust lead`", reason)

	r := s.run("agents", "trust", "lead", "--key", first)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "the card of lead names key "+second+", not "+first+": nothing trusted")
	assert.Equal(t, "lead: key "+second+" pinned, replacing "+first+"\n", s.ok("agents", "trust", "lead", "--key", second))
	state, _, pinned = s.agentKey("lead")
	assert.Equal(t, "pinned", state)
	assert.Equal(t, second, pinned)
	var trusted []string
	for _, l := range decodeLines(t, s.ok("log", "--kind", "key", "--json")) {
		if l["from"] == "operator" {
			trusted = append(trusted, l["agent"].(string)+": "+l["reason"].(string))
		}
	}
	assert.Equal(t, []string{"lead: pinned " + second + " by operator, replacing " + first}, trusted)

	after := s.sendID("--from", "lead", "--to", "coder", "--text", "trusted")
	md = next()
	assert.Equal(t, after, md["message_id"])
	assert.Nil(t, md["unverified"], "signed by the key trusted")
	recv.signal(os.Interrupt)
	require.Equal(t, 0, recv.wait(), recv.stderrSoFar())

	r = s.run("agents", "trust", "nobody")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "no agent nobody")
}

// TestOperatorKeyVouchesForRotation: with channels.mailbox.operatorKey,
// a key is believed once the operator vouched for it (keys sign-card),
// and a changed key it vouched for is taken without `agents trust`.
func TestOperatorKeyVouchesForRotation(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	opFile := filepath.Join(s.home, "operator.nk")
	pub := strings.TrimSpace(s.ok("keys", "new-operator", opFile))
	assert.Regexp(t, `^O[A-Z0-9]{55}$`, pub)
	info, err := os.Stat(opFile)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	assert.Equal(t, 1, s.run("keys", "new-operator", opFile).code, "never replaces a key")

	conf := s.writeConfig("signed.json", `{"channels": {"mailbox": {"operatorKey": "`+pub+`"}}}`)
	op := *s
	op.global = []string{"--root", s.root, "--config", conf}
	op.startStop("lead")
	assert.Contains(t, op.ok("keys", "sign-card", "lead", "--operator-key", opFile), "lead: key ")
	op.startStop("lead") // puts the signature on its card

	recv := op.start("recv", "coder", "--json")
	recv.awaitStderr("listening as coder")
	next := func() map[string]any {
		var line map[string]any
		require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "a message")), &line))
		return line["mailbox"].(map[string]any)
	}
	first := op.sendID("--from", "lead", "--to", "coder", "--text", "vouched")
	md := next()
	assert.Equal(t, first, md["message_id"])
	assert.Nil(t, md["unverified"])

	// lead loses its key; the operator vouches for the new one.
	require.NoError(t, os.Remove(filepath.Join(s.root, "lead", "state", "signing-key.json")))
	op.startStop("lead")
	op.ok("keys", "sign-card", "lead", "--operator-key", opFile)
	op.startStop("lead")
	_, _, pinned := op.agentKey("lead")
	state, key, _ := op.agentKey("lead")
	assert.Equal(t, "pinned", state, "the agent pinned its vouched-for key itself")
	assert.Equal(t, key, pinned)
	second := op.sendID("--from", "lead", "--to", "coder", "--text", "rotated")
	md = next()
	assert.Equal(t, second, md["message_id"])
	assert.Nil(t, md["unverified"], "a rotation the operator key vouched for")
	recv.signal(os.Interrupt)
	require.Equal(t, 0, recv.wait(), recv.stderrSoFar())
}
