package main_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// bridgeWorld is a folder (the sandbox's root, where nanobot's agents
// live) and a NATS server, and the bridges started between them.
type bridgeWorld struct {
	*natsWorld
}

func newBridgeWorld(t *testing.T) *bridgeWorld {
	t.Helper()
	return &bridgeWorld{natsWorld: newNATSWorld(t)}
}

// startBridge starts `switchboard bridge` named id on the folder and the
// server, logging at debug level, and waits until it runs.
func (w *bridgeWorld) startBridge(id string) *proc {
	w.t.Helper()
	s := *w.sandbox
	s.global = []string{"--root", w.root}
	p := s.start("bridge", "--nats-url", w.url, "--id", id, "--interval", "0.2", "--log-level", "debug")
	p.awaitStderr(`msg="bridge running"`)
	return p
}

// kill SIGKILLs p and waits for it to end.
func kill(t *testing.T, p *proc) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Kill())
	p.wait()
}

// awaitAll reads p's stderr until a line has each of wants (in any order),
// a line matching a want when it contains all of want's substrings.
func (p *proc) awaitAll(wants ...[]string) {
	p.t.Helper()
	left := append([][]string(nil), wants...)
	for len(left) > 0 {
		line := p.next(p.stderr, fmt.Sprintf("waiting for %q", left))
		for i, want := range left {
			if containsAll(line, want) {
				left = append(left[:i], left[i+1:]...)
				break
			}
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// registerNanobot writes agent's card into the folder's _registry.json as
// nanobot's MailboxManager.register does (a read, a change, a rename).
func (s *sandbox) registerNanobot(agent string) {
	s.t.Helper()
	s.python(`
import os
from datetime import datetime, timezone
reg = root / "_registry.json"
data = json.loads(reg.read_text()) if reg.exists() else {}
now = datetime.now(timezone.utc).isoformat()
data[` + pyString(agent) + `] = {"agent_id": ` + pyString(agent) + `, "description": "a nanobot agent", "capabilities": [],
    "status": "idle", "allow_from": ["*"], "max_concurrent_tasks": 3, "current_tasks": [],
    "registered_at": now, "last_heartbeat": now}
tmp = root / "_registry.json.tmp"
tmp.write_text(json.dumps(data))
os.replace(tmp, reg)`)
}

// TestNanobotTaskThroughKilledBridge is the bridge's story: a nanobot
// agent on a folder (MailboxManager's algorithm, in Python) sends a task
// to a switchboard agent on NATS through the bridge, and gets the result,
// though the bridge is SIGKILLed after it forwarded the task and before
// the result comes back; nothing is lost or doubled.
func TestNanobotTaskThroughKilledBridge(t *testing.T) {
	t.Parallel()
	w := newBridgeWorld(t)
	w.registerNanobot("nano")
	workerConf := w.writeConfig("worker.json", fmt.Sprintf(`{
  "agents": {"defaults": {"workspace": "~/.nanobot/worker"}},
  "channels": {"mailbox": {"enabled": true, "agentId": "worker", "capabilities": ["sorting"], "backend": "nats", "nats": {"url": %q}}}
}`, w.url))
	bridge := w.startBridge("b1")
	worker := w.as(workerConf).start("run")
	worker.awaitStderr("host running")
	bridge.awaitAll([]string{"forwarding the agent's messages", "agent=worker", "from=folder"},
		[]string{"forwarding the agent's messages", "agent=nano", "from=nats"})

	var cards map[string]envelope.Card
	require.NoError(t, json.Unmarshal([]byte(w.python(`print((root / "_registry.json").read_text())`)), &cards))
	require.Contains(t, cards, "worker", "nanobot sees the worker in its registry")
	assert.Equal(t, "b1", cards["worker"].BridgedBy)
	assert.Equal(t, []string{"sorting"}, cards["worker"].Capabilities)
	assert.Empty(t, cards["nano"].BridgedBy, "nanobot's own card is left as it is")
	assert.Equal(t, "b1", natsCards(t, w.url)["nano"].BridgedBy, "switchboard's agents see nano on NATS")

	// The worker stops, so that the result can only come after the kill.
	worker.signal(sigterm)
	require.Equal(t, 0, worker.wait(), worker.stderrSoFar())
	w.python(`
msg = n.channel_message("nano", "worker", "sort 5 3 9 1")
msg["type"] = "task"
msg["task"] = {"id": "task-nano-1", "state": "pending"}
n.send(root, "nano", "worker", msg)`)
	bridge.awaitAll([]string{"msg=forwarded", "agent=worker", "sender=nano", "type=task"})
	kill(t, bridge)

	worker = w.as(workerConf).start("run") // takes the task, answers into nano's inbox on NATS
	worker.awaitStderr("host running")
	bridge = w.startBridge("b1")
	bridge.awaitAll([]string{"msg=forwarded", "agent=nano", "sender=worker", "type=task_update"},
		[]string{"msg=forwarded", "agent=nano", "sender=worker", "type=task_update"})

	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(w.python(`
msgs = n.poll(root, "nano")
for m in msgs:
    n.mark_processed(root, "nano", m["_filename"])
print(json.dumps(msgs))`)), &got))
	states := map[string]int{}
	ids := map[string]bool{}
	for _, m := range got {
		assert.Equal(t, "worker", m["from"])
		assert.False(t, ids[m["id"].(string)], "message %s twice", m["id"])
		ids[m["id"].(string)] = true
		task := m["task"].(map[string]any)
		assert.Equal(t, "task-nano-1", task["id"])
		states[task["state"].(string)]++
		if task["state"] == "completed" {
			assert.Contains(t, fmt.Sprint(m["content"]), "1 3 5 9", "the result")
		}
		assert.Contains(t, m, "signature", "the worker's signature travels with the message")
	}
	assert.Equal(t, map[string]int{"accepted": 1, "completed": 1}, states, "each update once: %v", got)

	worker.signal(sigterm)
	require.Equal(t, 0, worker.wait(), worker.stderrSoFar())
	bridge.signal(sigterm)
	require.Equal(t, 0, bridge.wait(), bridge.stderrSoFar())
	assert.Len(t, w.msgFiles("worker", "processed"), 1, "the task left the folder once")
	assert.Empty(t, w.msgFiles("worker", "inbox"))
	assert.Empty(t, w.msgFiles("nano", "inbox"))
}

// TestSwitchboardToFolderThroughBridge: a switchboard agent on NATS sends
// to an agent on the folder (switchboard recv there), and the answer
// comes back; both are signed and verify on the other side, the keys
// travelling on the copied cards.
func TestSwitchboardToFolderThroughBridge(t *testing.T) {
	t.Parallel()
	w := newBridgeWorld(t)
	folder := *w.sandbox
	folder.global = []string{"--root", w.root}
	lead := folder.start("recv", "lead", "--json")
	lead.awaitStderr("listening as lead")
	peer := w.start("recv", "peer", "--json")
	peer.awaitStderr("listening as peer")
	bridge := w.startBridge("b1")
	bridge.awaitAll([]string{"forwarding the agent's messages", "agent=lead", "from=nats"},
		[]string{"forwarding the agent's messages", "agent=peer", "from=folder"})

	asked := strings.TrimSpace(w.ok("send", "--from", "peer", "--to", "lead", "--text", "hello across"))
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(lead.next(lead.stdout, "the message from NATS")), &line))
	md := line["mailbox"].(map[string]any)
	assert.Equal(t, asked, md["message_id"])
	assert.Equal(t, "peer", md["from"])
	assert.Equal(t, "hello across", line["content"])
	assert.Nil(t, md["unverified"], "signed by peer, verified with the key its copied card names")

	answer := strings.TrimSpace(folder.ok("send", "--from", "lead", "--to", "peer", "--reply-to", asked, "--text", "hello back"))
	require.NoError(t, json.Unmarshal([]byte(peer.next(peer.stdout, "the answer from the folder")), &line))
	md = line["mailbox"].(map[string]any)
	assert.Equal(t, answer, md["message_id"])
	assert.Equal(t, asked, md["reply_to"])
	assert.Equal(t, "hello back", line["content"])
	assert.Nil(t, md["unverified"])

	// A file sent on NATS arrives on the folder with its bytes.
	report := filepath.Join(w.home, "report.md")
	body := strings.Repeat("# findings\n", 5000)
	require.NoError(t, os.WriteFile(report, []byte(body), 0o600))
	w.ok("send", "--from", "peer", "--to", "lead", "--text", "the report", "--file", report)
	require.NoError(t, json.Unmarshal([]byte(lead.next(lead.stdout, "the report from NATS")), &line))
	parts := line["mailbox"].(map[string]any)["parts"].([]any)
	var uri string
	for _, p := range parts {
		if p := p.(map[string]any); p["type"] == "file" {
			uri, _ = p["uri"].(string)
		}
	}
	require.NotEmpty(t, uri, "the file part names an artifact: %v", parts)
	out := filepath.Join(w.home, "copy.md")
	folder.ok("artifact", "get", uri, "--out", out)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, body, string(got), "the bytes crossed the bridge")

	for _, p := range []*proc{lead, peer, bridge} {
		p.signal(sigterm)
		assert.Equal(t, 0, p.wait(), p.stderrSoFar())
	}
	assert.Contains(t, bridge.stderrSoFar(), "forwarded=3 duplicates_dropped=0 set_aside=0 artifacts_copied=1")
}

// nanobotReader runs nanobot's receive loop in Python (poll, then
// mark_processed each message) on agent's inbox in the folder, and
// reports the id of each message it handles; it does no deduplication,
// as nanobot does none. It stops after a last poll when stopped.
type nanobotReader struct {
	cmd  *exec.Cmd
	ids  chan string
	done chan struct{}
}

func (s *sandbox) startNanobotReader(agent string) *nanobotReader {
	s.t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "bench", "mailbox"))
	require.NoError(s.t, err)
	if _, err := exec.LookPath("python3"); err != nil {
		s.t.Skipf("python3 not found (%v)", err)
	}
	code := `
import sys, json, signal, time
sys.path.insert(0, ` + pyString(dir) + `)
import nanobot_algo as n
from pathlib import Path
root = Path(` + pyString(s.root) + `)
stop = False
def halt(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, halt)
while True:
    last = stop
    for m in n.poll(root, ` + pyString(agent) + `):
        print(m["id"], flush=True)
        n.mark_processed(root, ` + pyString(agent) + `, m["_filename"])
    if last:
        break
    time.sleep(0.01)  # nanobot polls; this is its poll interval, not the test's synchronisation
`
	cmd := exec.Command("python3", "-c", code)
	cmd.Env = s.env()
	out, err := cmd.StdoutPipe()
	require.NoError(s.t, err)
	cmd.Stderr = os.Stderr
	require.NoError(s.t, cmd.Start())
	r := &nanobotReader{cmd: cmd, ids: make(chan string, 4096), done: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			r.ids <- sc.Text()
		}
		close(r.ids)
		cmd.Wait()
		close(r.done)
	}()
	s.t.Cleanup(func() { cmd.Process.Kill(); <-r.done })
	return r
}

// TestBridgeKilledManyTimes: 300 messages from NATS to a nanobot agent on
// the folder, with the bridge SIGKILLed eight times at points the traffic
// decides: each message reaches nanobot exactly once.
func TestBridgeKilledManyTimes(t *testing.T) {
	t.Parallel()
	const total = 300
	w := newBridgeWorld(t)
	w.registerNanobot("nano")
	reader := w.startNanobotReader("nano")
	bridge := w.startBridge("b1")
	bridge.awaitAll([]string{"forwarding the agent's messages", "agent=nano", "from=nats"})

	st := w.open()
	sent := map[string]bool{}
	var sending sync.WaitGroup
	sending.Go(func() {
		ctx := testkit.CtxFor(t, total*10*time.Millisecond)
		for i := range total {
			m := &envelope.Message{ID: envelope.NewID(), From: "feeder", To: "nano", Timestamp: envelope.NewTime(time.Now()),
				Type: envelope.TypeMessage, TTL: 3, Trace: []string{"feeder"},
				Content: envelope.Content{Parts: []envelope.Part{{Type: envelope.PartText, Text: fmt.Sprintf("message %d", i)}}}}
			if !assert.NoError(t, st.Deliver(ctx, m)) {
				return
			}
			sent[m.ID] = true
		}
	})
	var logs strings.Builder // of the bridges killed
	got := map[string]int{}
	kills := map[int]bool{23: true, 61: true, 97: true, 131: true, 167: true, 199: true, 233: true, 271: true}
	limit := testkit.For(total * 20 * time.Millisecond)
	for n := 0; n < total; {
		id := testkit.RecvWithin(t, reader.ids, fmt.Sprintf("message %d of %d at nanobot", n+1, total), limit)
		got[id]++
		if got[id] == 1 {
			n++
		}
		if kills[n] {
			delete(kills, n)
			kill(t, bridge)
			logs.WriteString(bridge.stderrSoFar())
			bridge = w.startBridge("b1")
		}
	}
	sending.Wait()
	bridge.signal(sigterm)
	require.Equal(t, 0, bridge.wait(), bridge.stderrSoFar())
	require.NoError(t, reader.cmd.Process.Signal(sigterm))
	for id := range reader.ids { // what its last poll found
		got[id]++
	}
	logs.WriteString(bridge.stderrSoFar())
	t.Logf("redelivered after a kill and found at nanobot's: %d", strings.Count(logs.String(), "the destination holds the message already"))
	assert.Len(t, got, total, "every message arrived")
	for id, n := range got {
		assert.True(t, sent[id], "%s was sent", id)
		assert.Equal(t, 1, n, "message %s handed to nanobot %d times", id, n)
	}
	depth, err := st.Depth(testkit.Ctx(t), "nano")
	require.NoError(t, err)
	assert.Zero(t, depth, "nothing left on NATS")
}

// TestTwoBridgesDoNotLoop: two bridges between the same folder and
// server share the work: each message crosses one of them once, a copied
// card is never copied back, and nothing is set aside as a loop.
func TestTwoBridgesDoNotLoop(t *testing.T) {
	t.Parallel()
	const each = 40
	w := newBridgeWorld(t)
	w.registerNanobot("nano")
	reader := w.startNanobotReader("nano")
	sink := w.start("recv", "sink", "--json")
	sink.awaitStderr("listening as sink")
	b1, b2 := w.startBridge("b1"), w.startBridge("b2")
	// Each inbox is read by one of them while the other waits for it.
	for _, b := range []*proc{b1, b2} {
		b.awaitAll([]string{"level=INFO", "agent=nano", "from=nats"}, []string{"level=INFO", "agent=sink", "from=folder"})
	}

	st := w.open()
	ctx := testkit.CtxFor(t, 2*each*10*time.Millisecond)
	for i := range each {
		m := &envelope.Message{ID: envelope.NewID(), From: "sink", To: "nano", Timestamp: envelope.NewTime(time.Now()),
			Type: envelope.TypeMessage, TTL: 3, Trace: []string{"sink"},
			Content: envelope.Content{Parts: []envelope.Part{{Type: envelope.PartText, Text: fmt.Sprintf("to nano %d", i)}}}}
		require.NoError(t, st.Deliver(ctx, m))
	}
	w.python(fmt.Sprintf(`
for i in range(%d):
    n.send(root, "nano", "sink", n.channel_message("nano", "sink", "to sink %%d" %% i))`, each))

	atNano := map[string]int{}
	for len(atNano) < each {
		atNano[testkit.RecvWithin(t, reader.ids, "a message at nano", testkit.For(each*20*time.Millisecond))]++
	}
	atSink := map[string]int{}
	for len(atSink) < each {
		var line map[string]any
		require.NoError(t, json.Unmarshal([]byte(sink.next(sink.stdout, "a message at sink")), &line))
		atSink[line["content"].(string)]++
	}
	for _, p := range []*proc{b1, b2, sink} {
		p.signal(sigterm)
		require.Equal(t, 0, p.wait(), p.stderrSoFar())
	}
	require.NoError(t, reader.cmd.Process.Signal(sigterm))
	for id := range reader.ids {
		atNano[id]++
	}
	for id, n := range atNano {
		assert.Equal(t, 1, n, "message %s at nano %d times", id, n)
	}
	assert.Len(t, atSink, each)
	for text, n := range atSink {
		assert.Equal(t, 1, n, "%q at sink %d times", text, n)
	}
	for _, p := range []*proc{b1, b2} {
		assert.NotContains(t, p.stderrSoFar(), "set aside", "no loop, nothing refused")
	}
	var cards map[string]envelope.Card
	require.NoError(t, json.Unmarshal([]byte(w.python(`print((root / "_registry.json").read_text())`)), &cards))
	assert.Empty(t, cards["nano"].BridgedBy, "nano's own card is never replaced by a copy")
	assert.Contains(t, []string{"b1", "b2"}, cards["sink"].BridgedBy)
	nats := natsCards(t, w.url)
	assert.Empty(t, nats["sink"].BridgedBy)
	assert.Contains(t, []string{"b1", "b2"}, nats["nano"].BridgedBy)
	var processed []map[string]any
	require.NoError(t, json.Unmarshal([]byte(w.python(`
out = []
for p in sorted((root / "nano" / "processed").glob("*.msg.json")):
    out.append(json.loads(p.read_text()))
print(json.dumps(out))`)), &processed))
	require.Len(t, processed, each)
	for _, m := range processed {
		assert.Len(t, m["bridges"], 1, "crossed one bridge: %v", m["bridges"])
	}
}

// TestBridgeSetsGarbageAside: a file in an inbox the bridge reads that is
// no message is set aside with the reason, and the bridge goes on.
func TestBridgeSetsGarbageAside(t *testing.T) {
	t.Parallel()
	w := newBridgeWorld(t)
	st := w.open()
	ctx := testkit.Ctx(t)
	_, err := st.UpdateCard(ctx, "sink", func(c *envelope.Card) {
		c.Status, c.LastHeartbeat = envelope.StatusIdle, envelope.NewTime(time.Now())
	})
	require.NoError(t, err)
	bridge := w.startBridge("b1")
	bridge.awaitAll([]string{"forwarding the agent's messages", "agent=sink", "from=folder"})

	w.python(`
inbox = root / "sink" / "inbox"
(inbox / "1000_nano_garbage.msg.json").write_text("{not json")
n.send(root, "nano", "sink", n.channel_message("nano", "sink", "after the garbage"))`)
	in, err := st.OpenInbox(ctx, "sink")
	require.NoError(t, err)
	d, err := in.Next(ctx)
	require.NoError(t, err)
	assert.Equal(t, "after the garbage", d.Message.Text())
	require.NoError(t, in.Ack(ctx, d))
	require.NoError(t, in.Close())

	folder := *w.sandbox
	folder.global = []string{"--root", w.root}
	dead := folder.ok("dead", "sink", "--json")
	assert.Contains(t, dead, "1000_nano_garbage.msg.json")
	assert.Regexp(t, `"reason":"[^"]*(json|JSON|decode|malformed)`, dead)
	bridge.signal(sigterm)
	require.Equal(t, 0, bridge.wait(), bridge.stderrSoFar())
}
