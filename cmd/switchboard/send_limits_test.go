package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSendRateLimits: switchboard send enforces channels.mailbox.limits
// across its invocations (the buckets are kept in the store): at burst 2
// the third send to one agent exits 1 saying which limit and how long to
// wait; a send to another agent, and a reply, still go; perAgent bounds
// them all.
func TestSendRateLimits(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	conf := s.writeConfig("limits.json", `{"channels": {"mailbox": {"limits": {
		"perEdge": {"rate": 1, "per": "hour", "burst": 2}, "perAgent": {"rate": 1, "per": "hour", "burst": 4}}}}}`)
	send := func(args ...string) result {
		return s.run(append([]string{"--config", conf, "send", "--new", "--from", "lead"}, args...)...)
	}
	for range 2 {
		r := send("--to", "coder", "--text", "hi")
		require.Equal(t, 0, r.code, r.stderr)
	}
	for range 2 {
		assertOneLineError(t, send("--to", "coder", "--text", "hi"), 1,
			"send lead → coder: rate limited: over 1/hour, burst 2 to one agent (channels.mailbox.limits.perEdge); wait 1h0m0s before sending to coder again")
	}
	assert.Len(t, s.msgFiles("coder", "inbox"), 2)

	req := s.sendID("--from", "coder", "--to", "lead", "--text", "which branch?", "--expects-reply")
	r := send("--to", "coder", "--reply-to", req, "--text", "main")
	assert.Equal(t, 0, r.code, "a reply is not counted: %s", r.stderr)

	for range 2 {
		r := send("--to", "critic", "--text", "hi")
		require.Equal(t, 0, r.code, r.stderr)
	}
	assertOneLineError(t, send("--to", "writer", "--text", "hi"), 1,
		"over 1/hour, burst 4 in all (channels.mailbox.limits.perAgent)")
}
