package main_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The reading commands on a NATS server that has no mailbox yet say there
// is nothing and create nothing; on a mailbox that exists they change
// nothing: no stream or bucket, no message stored, removed or
// acknowledged.
func TestNATSReadingCommandsCreateNothing(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	where := "NATS at " + w.url
	assert.Equal(t, "no agents in "+where+"\n", w.ok("agents"))
	assert.Empty(t, w.ok("agents", "--json"))
	assert.Empty(t, w.ok("agents", "--by-role", "--json"))
	assert.Equal(t, "no messages pending for coder\n", w.ok("inbox", "coder"))
	assert.Empty(t, w.ok("inbox", "coder", "--json"))
	assertOneLineError(t, w.run("thread", "x"), 1, "message x not found on "+where)
	assert.Equal(t, "no replies pending\n", w.ok("pending"))
	assert.Empty(t, w.ok("pending", "coder", "--json"))
	assert.Equal(t, "no audit entries in "+where+"\n", w.ok("log"))
	got, _ := w.complete("inbox", "")
	assert.Empty(t, got, "no agents to complete")
	assert.Empty(t, w.streams(), "no stream or bucket created")

	id := w.sendID("--from", "lead", "--to", "coder", "--text", "which order?", "--expects-reply")
	before := w.streams()
	require.NotEmpty(t, before)
	for _, args := range [][]string{
		{"agents"}, {"agents", "--json"}, {"agents", "--by-role"},
		{"inbox", "coder"}, {"inbox", "coder", "--json"}, {"thread", id}, {"thread", id, "--json"},
		{"pending"}, {"pending", "coder", "--json"}, {"log"}, {"log", "--json"},
		{"__complete", "inbox", ""}, {"__complete", "send", "--to", ""},
	} {
		out := w.ok(args...) // each command ran to its end, and found the message
		if args[0] != "agents" && args[0] != "__complete" {
			assert.Contains(t, out, id, "switchboard %v", args)
		}
		require.Equal(t, before, w.streams(), "switchboard %v changed the NATS mailbox", args)
	}
}

// ageColumn matches the AGE column of a message sent during the test, however
// long the test took.
const ageColumn = `(just now|\d+[smh] ago)`

// thread, pending and inbox on NATS: a request and its reply sent with
// send --reply-to are one thread; the request is pending until answered.
func TestNATSThreadPendingInbox(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	q := w.sendID("--from", "lead", "--to", "coder", "--text", "which order?", "--expects-reply", "--subject", "sort-order")
	inbox := decodeLines(t, w.ok("inbox", "coder", "--json"))
	require.Len(t, inbox, 1)
	assert.Equal(t, q, inbox[0]["id"])
	assert.Equal(t, "which order?", inbox[0]["text"])
	assert.Regexp(t, `(?m)^`+ageColumn+` +lead \(unverified\) +message +`+q+` +which order\?$`, w.ok("inbox", "coder"))
	pending := decodeLines(t, w.ok("pending", "coder", "--json"))
	require.Len(t, pending, 1)
	assert.Equal(t, q, pending[0]["message_id"])
	assert.Equal(t, "inbox", pending[0]["box"])

	a := w.sendID("--from", "coder", "--to", "lead", "--reply-to", q, "--text", "ascending")
	chain := decodeLines(t, w.ok("thread", q, "--json"))
	require.Len(t, chain, 2)
	assert.Equal(t, []any{q, a}, []any{chain[0]["id"], chain[1]["id"]})
	assert.Equal(t, []any{float64(0), float64(1)}, []any{chain[0]["depth"], chain[1]["depth"]})
	assert.Equal(t, q, chain[1]["thread_id"], "the reply joined the request's thread")
	assert.Equal(t, float64(1), chain[1]["hop_count"])
	table := w.ok("thread", a)
	assert.Regexp(t, `(?m)^`+ageColumn+` +lead \(unverified\) +coder +message +`+q+` +which order\?$`, table)
	assert.Regexp(t, `(?m)^`+ageColumn+` +  coder \(unverified\) +lead +message +`+a+` +ascending$`, table)
	assert.Empty(t, w.ok("pending", "--json"), "answered")

	agents := agentsByID(t, w.sandbox)
	for _, id := range []string{"coder", "lead"} {
		assert.Equal(t, false, agents[id]["registered"], id)
		assert.Equal(t, float64(1), agents[id]["inbox_depth"], id)
	}
}

// log on NATS reads the store's audit log: a message sent and received is
// sent, then claimed; the filters apply.
func TestNATSLog(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	id := w.sendID("--from", "lead", "--to", "coder", "--text", "hello")
	recv := w.start("recv", "coder", "--count", "1", "--json")
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "recv")), &got))
	require.Equal(t, 0, recv.wait(), recv.stderrSoFar())

	var kinds []string
	for _, e := range decodeLines(t, w.ok("log", "--id", id, "--json")) {
		assert.Equal(t, id, e["message_id"])
		assert.Equal(t, "coder", e["agent"])
		assert.Equal(t, "lead", e["from"])
		kinds = append(kinds, e["kind"].(string))
	}
	require.Contains(t, kinds, "sent")
	require.Contains(t, kinds, "claimed")
	assert.Less(t, slices.Index(kinds, "sent"), slices.Index(kinds, "claimed"), "oldest first")
	for _, e := range decodeLines(t, w.ok("log", "--kind", "sent", "--json")) {
		assert.Equal(t, "sent", e["kind"])
	}
	assert.Regexp(t, `(?m)^`+ageColumn+` +claimed +coder +lead +`+id+` `, w.ok("log", "--agent", "coder"))
	assert.Empty(t, w.ok("log", "--agent", "nobody", "--json"))
}

// A mailbox whose history stream is missing (made by an older version, or
// removed): agents still lists the cards, without inbox depths, and says
// why on stderr; thread fails naming what it cannot read.
func TestNATSWithoutHistory(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	_, err := w.open().UpdateCard(ctx, "coder", func(c *envelope.Card) {
		c.Status, c.LastHeartbeat = envelope.StatusIdle, envelope.NewTime(time.Now())
	})
	require.NoError(t, err)
	require.NoError(t, w.jetStream().DeleteStream(ctx, "MAILBOX_HISTORY"))

	r := w.run("agents")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `(?m)^coder \(unverified\) +idle +- +`, r.stdout)
	assert.Regexp(t, `^switchboard: inbox depths not shown: .*MAILBOX_HISTORY.*\n$`, r.stderr)
	assertOneLineError(t, w.run("thread", "x"), 1, "MAILBOX_HISTORY")
}

// On NATS a message the running receiver holds (a request until it is
// answered) is still in its inbox, and agents counts what inbox lists.
func TestNATSDepthCountsHeldMessages(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	recv := w.as(w.agentConf("coder", "")).start("recv", "coder", "--json")
	recv.awaitStderr("listening as coder in NATS at " + w.url)
	id := w.sendID("--from", "lead", "--to", "coder", "--text", "which order?", "--expects-reply")
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "recv")), &got))
	require.Equal(t, id, got["mailbox"].(map[string]any)["message_id"])

	inbox := decodeLines(t, w.ok("inbox", "coder", "--json"))
	require.Len(t, inbox, 1, "held, not acknowledged")
	assert.Equal(t, id, inbox[0]["id"])
	coder := agentsByID(t, w.sandbox)["coder"]
	assert.Equal(t, float64(1), coder["inbox_depth"], "the depth is what inbox lists")
	assert.Equal(t, "idle", coder["effective_status"])
	recv.signal(os.Interrupt)
	require.Equal(t, 0, recv.wait(), recv.stderrSoFar())
}
