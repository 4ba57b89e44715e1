package main_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// agentsByID runs agents --json and returns its lines by agent id.
func agentsByID(t *testing.T, s *sandbox, args ...string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, l := range decodeLines(t, s.ok(append([]string{"agents", "--json"}, args...)...)) {
		out[l["agent_id"].(string)] = l
	}
	return out
}

// With the config's backend "nats" and no --root: two agents receiving
// with recv are listed online with their cards; a send to cap:review
// reaches each of them once, with every conversation flag; after recv
// stops they are offline.
func TestNATSAgentsSendRecv(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	coder := w.as(w.agentConf("coder", `"capabilities": ["review", "code"], "description": "writes code"`)).
		start("recv", "coder", "--count", "1", "--json")
	critic := w.as(w.agentConf("critic", `"capabilities": ["review"], "roles": ["reviewer"]`)).
		start("recv", "critic", "--count", "1", "--json")
	coder.awaitStderr("listening as coder in NATS at " + w.url)
	critic.awaitStderr("listening as critic in NATS at " + w.url)

	agents := agentsByID(t, w.sandbox)
	require.Len(t, agents, 2, "coder and critic")
	for _, id := range []string{"coder", "critic"} {
		assert.Equal(t, "idle", agents[id]["effective_status"], id)
		assert.Equal(t, true, agents[id]["registered"], id)
	}
	assert.Equal(t, []any{"review", "code"}, agents["coder"]["capabilities"])
	assert.Equal(t, "writes code", agents["coder"]["description"])
	assert.Equal(t, []any{"reviewer"}, agents["critic"]["roles"])
	assert.Equal(t, []string{"critic"}, w.agentIDs("--role", "reviewer"))
	table := w.ok("agents")
	assert.Regexp(t, `(?m)^coder +idle +`, table)
	assert.Regexp(t, `(?m)^critic +idle +`, table)
	got, _ := w.complete("recv", "")
	assert.Equal(t, []string{"coder\twrites code", "critic"}, got, "completion reads the cards on NATS")

	ids := w.sendIDs("--from", "lead", "--to", "cap:review", "--text", "please review PR 7", "--subject", "code-review",
		"--expects-reply", "--reply-by", "1h", "--priority", "2", "--for-task", "t7")
	require.Len(t, ids, 2, "one copy for each holder of review")
	var threads []any
	for name, p := range map[string]*proc{"coder": coder, "critic": critic} {
		var line map[string]any
		require.NoError(t, json.Unmarshal([]byte(p.next(p.stdout, "recv "+name)), &line))
		require.Equal(t, 0, p.wait(), "recv %s: %s", name, p.stderrSoFar())
		mt := line["mailbox"].(map[string]any)
		assert.Contains(t, ids, mt["message_id"], name)
		assert.Equal(t, "lead", mt["from"])
		assert.Equal(t, name, mt["to"])
		assert.Equal(t, "please review PR 7", line["content"])
		assert.Equal(t, "code-review", mt["subject"])
		assert.Equal(t, true, mt["expects_reply"])
		assert.Equal(t, float64(2), mt["priority"])
		threads = append(threads, mt["thread_id"])
	}
	assert.Equal(t, threads[0], threads[1], "both copies in one thread")

	for id, l := range agentsByID(t, w.sandbox) {
		assert.Equal(t, "offline", l["effective_status"], "%s stopped cleanly", id)
	}
}

// On NATS the status comes from the presence bucket: a card that says idle
// with a fresh heartbeat is offline once its presence key is gone.
func TestNATSAgentsPresenceFromKV(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	card, err := w.open().UpdateCard(ctx, "ghost", func(c *envelope.Card) {
		c.Status, c.LastHeartbeat = envelope.StatusIdle, envelope.NewTime(time.Now())
	})
	require.NoError(t, err)
	require.Equal(t, envelope.StatusIdle, card.EffectiveStatus(time.Now(), 30*time.Second), "the card alone says online")
	assert.Equal(t, "idle", agentsByID(t, w.sandbox)["ghost"]["effective_status"])

	kv, err := w.jetStream().KeyValue(ctx, "mailbox-presence")
	require.NoError(t, err)
	require.NoError(t, kv.Delete(ctx, "ghost"))
	ghost := agentsByID(t, w.sandbox)["ghost"]
	assert.Equal(t, "offline", ghost["effective_status"], "no presence key: offline")
	assert.Equal(t, "idle", ghost["status"], "whatever the card says")
}

// recv takes the agent's inbox on NATS: a second recv of the same agent
// fails with one line naming the holder.
func TestNATSRecvBusy(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	first := w.start("recv", "coder")
	first.awaitStderr("listening as coder in NATS at " + w.url)
	r := w.run("recv", "coder")
	assertOneLineError(t, r, 1, `inbox of "coder" is open in`)
	assert.Contains(t, r.stderr, "stop it first")
	first.signal(os.Interrupt)
	require.Equal(t, 0, first.wait(), first.stderrSoFar())
}

// watch on NATS follows the inbox subjects: every inbox, or one agent's,
// without claiming anything (recv then gets the message).
func TestNATSWatch(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	all := w.start("watch", "--json")
	all.awaitStderr("watching every inbox on NATS at " + w.url)
	one := w.start("watch", "coder")
	one.awaitStderr("watching coder's inbox on NATS at " + w.url)

	toCritic := w.sendID("--from", "lead", "--to", "critic", "--text", "first")
	toCoder := w.sendID("--from", "lead", "--to", "coder", "--text", "second")
	for _, want := range []string{toCritic, toCoder} {
		var line map[string]any
		require.NoError(t, json.Unmarshal([]byte(all.next(all.stdout, "watch --json")), &line))
		assert.Equal(t, want, line["id"])
		assert.Regexp(t, `^mailbox\.(critic|coder)\.inbox\.lead$`, line["file"], "the subject")
	}
	assert.Regexp(t, `^\d\d:\d\d:\d\d lead \(unverified\) → coder second$`, one.next(one.stdout, "watch coder"))
	for _, p := range []*proc{all, one} {
		p.signal(os.Interrupt)
		require.Equal(t, 0, p.wait(), p.stderrSoFar())
	}

	recv := w.start("recv", "coder", "--count", "1", "--json")
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "recv")), &got))
	assert.Equal(t, toCoder, got["mailbox"].(map[string]any)["message_id"], "watch claimed nothing")
	require.Equal(t, 0, recv.wait())
}

// doctor works on the filesystem store only and says so; --root still
// puts every command on the filesystem store, whatever the config's
// backend.
func TestNATSFilesystemOnly(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	r := w.run("doctor")
	assertOneLineError(t, r, 1, `doctor works on the filesystem store only, and channels.mailbox.backend is "nats" (pass --root DIR`)
	assert.NotContains(t, r.stderr, "run 'switchboard help")

	onFS := w.as(w.conf)
	onFS.global = append(onFS.global, "--root", w.root)
	assert.Equal(t, "no agents in "+w.root+"\n", onFS.ok("agents"))
	onFS.sendID("--from", "lead", "--to", "coder", "--text", "on disk")
	assert.Len(t, w.msgFiles("coder", "inbox"), 1)
	assert.Empty(t, w.streams(), "nothing on NATS")
	onFS.ok("doctor")
}
