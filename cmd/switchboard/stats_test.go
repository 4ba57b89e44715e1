package main_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// recordUsage writes the audit entries of turns of agent, as a host does
// after each turn: one usage entry with the model and the tokens.
// The third number of tokens, when given, is the part of the input read
// from the provider's prompt cache.
func recordUsage(t *testing.T, be *store.Store, agent string, at time.Time, tokens ...[]int64) {
	t.Helper()
	require.True(t, be.Has(store.CanAudit), "the store keeps an audit log")
	for _, tk := range tokens {
		ev := store.Event{Time: at, Kind: store.EventUsage, Agent: agent,
			Model: "gpt-test", MessageID: "m-" + agent, InputTokens: tk[0], OutputTokens: tk[1]}
		if len(tk) > 2 {
			ev.CachedTokens = tk[2]
		}
		require.NoError(t, be.Record(context.Background(), ev))
	}
}

// statsByAgent runs stats --json and returns its lines by agent.
func statsByAgent(t *testing.T, s *sandbox, args ...string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(s.ok(append([]string{"stats", "--json"}, args...)...)), "\n") {
		var l map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &l), line)
		out[l["agent"].(string)] = l
	}
	return out
}

// checkStats sends two messages from lead to coder and checks what stats
// says of them and of coder's recorded turns: two waiting, lead's send
// rate, coder's tokens (an entry older than the window left out).
func checkStats(t *testing.T, s *sandbox, be *store.Store) {
	t.Helper()
	s.sendID("--from", "lead", "--to", "coder", "--text", "one")
	s.sendID("--from", "lead", "--to", "coder", "--text", "two")
	now := time.Now()
	recordUsage(t, be, "coder", now.Add(-time.Minute), []int64{1200, 80, 1024}, []int64{300, 20})
	recordUsage(t, be, "coder", now.Add(-3*time.Hour), []int64{99999, 99999, 99999})
	require.NoError(t, be.Close()) // a store may buffer its audit entries until then

	got := statsByAgent(t, s, "--window", "1h")
	require.Contains(t, got, "coder")
	coder := got["coder"]
	assert.Equal(t, 2.0, coder["inbox_depth"])
	assert.GreaterOrEqual(t, coder["oldest_age_seconds"], 0.0)
	assert.Equal(t, 2.0, coder["turns"])
	assert.Equal(t, 1500.0, coder["input_tokens"])
	assert.Equal(t, 100.0, coder["output_tokens"])
	assert.Equal(t, 1024.0, coder["cached_tokens"], "the part of the input read from the prompt cache")
	assert.Equal(t, 1.0, coder["cache_hits"])
	assert.Equal(t, 3600.0, coder["window_seconds"])
	require.Contains(t, got, "lead", "an agent that only sent is listed from the log")
	assert.InDelta(t, 2.0/60, got["lead"]["sent_per_minute"], 1e-9)

	table := s.ok("stats")
	assert.Regexp(t, `(?m)^AGENT +STATUS +INBOX +OLDEST +SENT/MIN`, table)
	assert.Regexp(t, `(?m)^coder +\S+ +2 +\S+ +0\.00 +0\.00 +0\.00 +0 +\S+ +2 +1500 +1024 +100$`, table)
	assert.Contains(t, table, "rates and tokens over the last 1h0m0s")
}

func TestStats(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	assert.Equal(t, "no agents in "+s.root+"\n", s.ok("stats"))
	be, err := fsstore.Open(fsstore.Options{Root: s.root, NoSync: true, AuditLog: true})
	require.NoError(t, err)
	checkStats(t, s, store.New(be, nil))

	r := s.run("stats", "--window", "0s")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--window 0s: want a duration above 0")
}

func TestNATSStats(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	checkStats(t, w.sandbox, w.open())
}

// stats --watch prints again until it is stopped.
func TestStatsWatch(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.sendID("--from", "lead", "--to", "coder", "--text", "one")
	p := s.start("stats", "--watch", "--interval", "100ms")
	first := p.next(p.stdout, "the first table")
	assert.True(t, strings.HasPrefix(first, "AGENT"), first)
	for seen := 0; seen < 2; {
		if strings.HasPrefix(p.next(p.stdout, "a table printed again"), "AGENT") {
			seen++
		}
	}
	p.signal(sigterm)
	assert.Equal(t, 0, p.wait())
}
