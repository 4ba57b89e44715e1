package main_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestRecvCount(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	recv := s.start("recv", "worker", "--count", "2", "--json")
	recv.awaitStderr("listening as worker")

	first := s.sendID("--from", "researcher", "--to", "worker", "--text", "one")
	second := s.sendID("--from", "researcher", "--to", "worker", "--type", "task", "--task-id", "t2", "--text", "two")

	var got []map[string]any
	for range 2 {
		var line map[string]any
		require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "recv output")), &line))
		got = append(got, line)
	}
	require.Equal(t, 0, recv.wait(), "exit 0 after --count messages; stderr:\n%s", recv.stderrSoFar())
	assert.Empty(t, recv.rest(recv.stdout), "nothing more printed")

	for i, id := range []string{first, second} {
		line := got[i]
		assert.Equal(t, "mailbox", line["channel"])
		assert.Equal(t, "researcher", line["sender_id"])
		assert.Equal(t, "researcher", line["chat_id"])
		assert.Equal(t, "mailbox:researcher", line["session_key"])
		assert.NotEmpty(t, line["timestamp"])
		mt := line["mailbox"].(map[string]any)
		assert.Equal(t, id, mt["message_id"])
		assert.Equal(t, "researcher", mt["from"])
		assert.Equal(t, "worker", mt["to"])
		assert.Equal(t, float64(2), mt["ttl"])
		assert.Equal(t, []any{"researcher"}, mt["trace"])
		assert.Equal(t, id, mt["thread_id"])
	}
	assert.Equal(t, "one", got[0]["content"])
	assert.Equal(t, "message", got[0]["mailbox"].(map[string]any)["type"])
	assert.Equal(t, "two", got[1]["content"])
	assert.Equal(t, "task", got[1]["mailbox"].(map[string]any)["type"])
	assert.Equal(t, map[string]any{"id": "t2", "state": "pending"}, got[1]["mailbox"].(map[string]any)["task"])

	assert.Len(t, s.msgFiles("worker", "processed"), 1, "the message is handled")
	claims, err := fsstore.Claims(s.root, "worker")
	require.NoError(t, err)
	require.Len(t, claims, 1, "the task stays claimed: recv does not answer tasks")
	assert.Equal(t, s.msgFiles("worker", "inbox"), []string{claims[0].Name})
	accepted := s.inboxLines("researcher")
	require.Len(t, accepted, 1, "the channel accepted the task")
	assert.Equal(t, map[string]any{"id": "t2", "state": "accepted"}, accepted[0]["task"])
}

func TestRecvHumanOutput(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	recv := s.start("recv", "coder", "--count", "2")
	recv.awaitStderr("listening as coder")
	s.sendID("--from", "writer", "--to", "coder", "--text", "line one\nline two")

	task := recv.next(recv.stdout, "recv output") // nanobot's task was waiting
	assert.Regexp(t, `^\d\d:\d\d:\d\d researcher \(unverified\) \[task msg_1745659200_researcher pending\] 帮我写排序函数$`, task)
	msg := recv.next(recv.stdout, "recv output")
	assert.Regexp(t, `^\d\d:\d\d:\d\d writer \(unverified\) line one ⏎ line two$`, msg)
	assert.Equal(t, 0, recv.wait())
}

func TestRecvSignalStopsCleanly(t *testing.T) {
	t.Parallel()
	for _, sig := range []os.Signal{os.Interrupt, sigterm} {
		t.Run(sig.String(), func(t *testing.T) {
			s := newSandbox(t)
			recv := s.start("recv", "worker")
			recv.awaitStderr("listening as worker")
			card := agentCard(t, s, "worker")
			assert.Equal(t, "idle", card["status"], "registered while running")
			assert.Equal(t, "idle", card["effective_status"])

			recv.signal(sig)
			assert.Equal(t, 0, recv.wait(), "stderr:\n%s", recv.stderrSoFar())
			card = agentCard(t, s, "worker")
			assert.Equal(t, "offline", card["status"], "marked offline on stop")
			assert.Equal(t, "offline", card["effective_status"])
		})
	}
}

func TestRecvAgentAlreadyRunning(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	first := s.start("recv", "worker")
	first.awaitStderr("listening as worker")

	r := s.run("recv", "worker")
	assertOneLineError(t, r, 1, "recv worker: ")
	assert.Contains(t, r.stderr, "open in process")

	first.signal(os.Interrupt)
	assert.Equal(t, 0, first.wait())
}

func TestRecvUsage(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	before := snapshot(t, s.root)
	assertOneLineError(t, s.run("recv"), 2, "missing argument AGENT")
	assertOneLineError(t, s.run("recv", "../x"), 2, "invalid agent id")
	assertOneLineError(t, s.run("recv", "worker", "--count", "-1"), 2, "--count -1")
	assertOneLineError(t, s.run("recv", "worker", "--count", "two"), 2, `invalid argument "two" for "--count"`)
	requireUnchanged(t, before, s.root, "a refused recv") // nothing registered, no folder

}

// agentCard returns agent's line of agents --json.
func agentCard(t *testing.T, s *sandbox, agent string) map[string]any {
	t.Helper()
	for _, l := range decodeLines(t, s.ok("agents", "--json")) {
		if l["agent_id"] == agent {
			return l
		}
	}
	t.Fatalf("agent %s not listed", agent)
	return nil
}

// TestRecvJSONMailboxDetails: the nanobot task waiting in the inbox and a
// message with a file and data part, as recv --json prints them.
func TestRecvJSONMailboxDetails(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	file := filepath.Join(s.home, "report.pdf")
	require.NoError(t, os.WriteFile(file, []byte("%PDF"), 0o600))
	recv := s.start("recv", "coder", "--count", "2", "--json")
	recv.awaitStderr("listening as coder")
	id := s.sendID("--from", "writer", "--to", "coder", "--text", "see attached", "--file", file, "--data", `{"pages": 3}`)

	var task, msg map[string]any
	require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "recv output")), &task))
	require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "recv output")), &msg))
	require.Equal(t, 0, recv.wait(), "stderr:\n%s", recv.stderrSoFar())

	mt := task["mailbox"].(map[string]any)
	assert.Equal(t, "帮我写排序函数", task["content"])
	assert.Equal(t, "msg_1745659200_researcher", mt["message_id"])
	assert.Equal(t, "task", mt["type"])
	assert.Equal(t, float64(3), mt["ttl"], "nanobot's null ttl reads as the default")
	assert.Equal(t, []any{}, mt["trace"], "nanobot's null trace reads as empty")
	assert.Equal(t, map[string]any{"channel": "feishu", "session_id": "feishu:user_123"}, mt["task_callback"])
	assert.NotContains(t, mt, "callback", "never routed: coder did not send that task")

	mt = msg["mailbox"].(map[string]any)
	assert.Equal(t, "see attached", msg["content"])
	assert.Equal(t, []any{file}, msg["media"], "file parts are the bus message's media")
	assert.Equal(t, id, mt["message_id"])
	assert.Equal(t, []any{
		map[string]any{"type": "text", "text": "see attached"},
		map[string]any{"type": "data", "data": map[string]any{"pages": float64(3)}},
		map[string]any{"type": "file", "path": file},
	}, mt["parts"])
}

// The mailbox keys of the config (file or NANOBOT_ variable) apply to
// recv whatever agent it receives as, not only the section's own agent:
// here maxMessageBytes, through the environment alone.
func TestRecvTakesTheMailboxKeysForAnyAgent(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	big := s.sendID("--from", "boss", "--to", "worker", "--text", strings.Repeat("x", 4096))
	small := s.sendID("--from", "boss", "--to", "worker", "--text", "small")
	s.environ = []string{"NANOBOT_CHANNELS__MAILBOX__MAX_MESSAGE_BYTES=2048"}
	out := s.ok("recv", "worker", "--count", "1", "--json")
	assert.Contains(t, out, small)
	assert.NotContains(t, out, big)
	assert.Len(t, s.msgFiles("worker", "rejected"), 1, "the big one is set aside: over the variable's cap")
}

// recv takes a whole backlog from one sender, written at once: the
// receiving rate limit guards an agent's model, and applies to recv only
// when the config sets it; then the flood beyond its burst is set aside.
func TestRecvTakesAFloodUnlessTheConfigLimitsIt(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	const n = 100
	fill := func() {
		st, err := fsstore.Open(fsstore.Options{Root: s.root, NoSync: true})
		require.NoError(t, err)
		defer st.Close()
		for i := range n {
			m := &envelope.Message{ID: envelope.NewID(), From: "flood", To: "worker", Trace: []string{"flood"},
				Type: envelope.TypeMessage, Timestamp: envelope.NewTime(time.Now()), TTL: 3}
			m.Content.Parts = []envelope.Part{envelope.TextPart(strconv.Itoa(i))}
			require.NoError(t, st.Deliver(context.Background(), m))
		}
	}
	fill()
	out := s.ok("recv", "worker", "--count", strconv.Itoa(n), "--json")
	assert.Len(t, strings.Split(strings.TrimSpace(out), "\n"), n)
	assert.Empty(t, s.msgFiles("worker", "rejected"), "nothing set aside")

	fill()
	s.environ = []string{"NANOBOT_CHANNELS__MAILBOX__LIMITS__PER_SENDER__RATE=1",
		"NANOBOT_CHANNELS__MAILBOX__LIMITS__PER_SENDER__BURST=10"}
	recv := s.start("recv", "worker", "--json")
	for range 10 {
		recv.next(recv.stdout, "a message within the burst")
	}
	require.Eventually(t, func() bool { return len(s.msgFiles("worker", "rejected")) == n-10 },
		testkit.WaitLimit, 10*time.Millisecond, "the rest of the flood is set aside")
	require.NoError(t, recv.cmd.Process.Signal(syscall.SIGTERM))
	<-recv.done
}

// TestRecvOneAtATimeSetsNothingAside: `recv --count 1` run again and
// again over a waiting inbox takes at most one message ahead of what it
// prints, so no message waiting behind is handed out (and counted) over
// and over until maxDeliver sets it aside unseen.
func TestRecvOneAtATimeSetsNothingAside(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	st, err := fsstore.Open(fsstore.Options{Root: s.root, NoSync: true})
	require.NoError(t, err)
	var ids []string
	for i := range 12 {
		m := &envelope.Message{ID: envelope.NewID(), From: "lead", To: "worker", Trace: []string{"lead"},
			Type: envelope.TypeMessage, Timestamp: envelope.NewTime(time.Now()), TTL: 3}
		m.Content.Parts = []envelope.Part{envelope.TextPart(strconv.Itoa(i))}
		require.NoError(t, st.Deliver(context.Background(), m))
		ids = append(ids, m.ID)
	}
	require.NoError(t, st.Close())
	for i := range 8 { // past maxDeliver (5)
		out := s.ok("recv", "worker", "--count", "1", "--json")
		assert.Equal(t, ids[i], messageID(t, strings.TrimSpace(out)), "run %d prints the next message", i+1)
		claims, err := fsstore.Claims(s.root, "worker")
		require.NoError(t, err)
		assert.LessOrEqual(t, len(claims), 2, "run %d took at most what the bus holds ahead: %v", i+1, claims)
	}
	assert.Empty(t, s.msgFiles("worker", "rejected"), "nothing set aside")
	assert.Len(t, s.msgFiles("worker", "inbox"), 4)
}
