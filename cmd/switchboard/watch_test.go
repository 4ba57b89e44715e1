package main_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWatch(t *testing.T) {
	s := newSandbox(t)
	s.writeFixtures()
	watch := s.start("watch", "coder", "--json")
	watch.awaitStderr("watching coder's inbox")
	id := s.sendID("--from", "researcher", "--to", "coder", "--text", "看这里")

	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(watch.next(watch.stdout, "watch output")), &line))
	assert.Equal(t, id, line["id"], "the new message, not the one already waiting")
	assert.Equal(t, "看这里", line["text"])
	assert.Regexp(t, `^coder/inbox/\d{13}_researcher_.*\.msg\.json$`, line["file"])

	watch.signal(os.Interrupt)
	assert.Equal(t, 0, watch.wait(), "stderr:\n%s", watch.stderrSoFar())
	assert.Len(t, s.msgFiles("coder", "inbox"), 2, "watch claims nothing")
}

func TestWatchEveryAgent(t *testing.T) {
	s := newSandbox(t)
	watch := s.start("watch")
	watch.awaitStderr("watching every inbox")
	s.sendID("--from", "researcher", "--to", "brand-new", "--type", "task", "--task-id", "t1", "--text", "hello")

	// researcher never ran: it has no key, and what is sent in its name
	// goes unsigned.
	assert.Regexp(t, `^\d\d:\d\d:\d\d researcher \(unverified\) → brand-new \[task t1 pending\] hello$`, watch.next(watch.stdout, "watch output"))
	watch.signal(sigterm)
	assert.Equal(t, 0, watch.wait())
}

// TestWatchSeesNanobotDelivery: a message nanobot writes (X.msg.tmp, then
// renamed to X.msg.json) is reported once, whole, and left in the inbox;
// the temporary name is never reported.
func TestWatchSeesNanobotDelivery(t *testing.T) {
	s := newSandbox(t)
	s.writeFixtures()
	watch := s.start("watch", "coder", "--json")
	watch.awaitStderr("watching coder's inbox")

	s.writeNanobotFile("coder/inbox/1745659800_writer.msg.json", `{"id": "msg_1745659800_writer", "from": "writer",
		"to": "coder", "timestamp": "2026-04-26T10:10:00+00:00", "type": "message", "ttl": null, "trace": null,
		"content": {"parts": [{"type": "text", "text": "from python"}]}}`)
	var first map[string]any
	require.NoError(t, json.Unmarshal([]byte(watch.next(watch.stdout, "watch output")), &first))
	assert.Equal(t, "msg_1745659800_writer", first["id"])
	assert.Equal(t, "coder/inbox/1745659800_writer.msg.json", first["file"])
	assert.Equal(t, "from python", first["text"])

	// The next line is the next message: the first one was reported once.
	id := s.sendID("--from", "researcher", "--to", "coder", "--text", "from go")
	var second map[string]any
	require.NoError(t, json.Unmarshal([]byte(watch.next(watch.stdout, "watch output")), &second))
	assert.Equal(t, id, second["id"])

	watch.signal(sigterm)
	require.Equal(t, 0, watch.wait())
	assert.Empty(t, watch.rest(watch.stdout))
	assert.Len(t, s.msgFiles("coder", "inbox"), 3, "nothing claimed")
}

func TestWatchUsage(t *testing.T) {
	s := newSandbox(t)
	assertOneLineError(t, s.run("watch", "a/b"), 2, "invalid agent id")
	assertOneLineError(t, s.run("watch", "a", "b"), 2, `unexpected argument "b"`)
	assertOneLineError(t, s.run("watch", "--count", "1"), 2, "unknown flag: --count")
}

// TestWatchReportsUnreadableFiles: a malformed file arriving in an inbox is
// reported with the reason, and watching goes on.
func TestWatchReportsUnreadableFiles(t *testing.T) {
	for _, jsonOut := range []bool{true, false} {
		t.Run(map[bool]string{true: "json", false: "human"}[jsonOut], func(t *testing.T) {
			s := newSandbox(t)
			args := []string{"watch", "coder"}
			if jsonOut {
				args = append(args, "--json")
			}
			watch := s.start(args...)
			watch.awaitStderr("watching coder's inbox")
			s.writeNanobotFile("coder/inbox/1745659900_writer.msg.json", `{"id": "msg_1745659900_writer", "from": "wri`)
			line := watch.next(watch.stdout, "watch output")
			if jsonOut {
				var got map[string]any
				require.NoError(t, json.Unmarshal([]byte(line), &got))
				assert.Equal(t, "coder/inbox/1745659900_writer.msg.json", got["file"])
				assert.Contains(t, got["error"], "malformed message")
				assert.NotContains(t, got, "id")
			} else {
				assert.Regexp(t, `^\d\d:\d\d:\d\d unreadable coder/inbox/1745659900_writer\.msg\.json: malformed message`, line)
			}
			s.sendID("--from", "researcher", "--to", "coder", "--text", "still watching")
			assert.Contains(t, watch.next(watch.stdout, "watch output"), "still watching")
			watch.signal(os.Interrupt)
			require.Equal(t, 0, watch.wait(), "stderr:\n%s", watch.stderrSoFar())
		})
	}
}
