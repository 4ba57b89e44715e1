package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// uuidV7 matches the ids switchboard gives new messages.
var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// sendID runs send and returns the id it printed.
func (s *sandbox) sendID(args ...string) string {
	s.t.Helper()
	out := s.ok(append([]string{"send", "--new"}, args...)...)
	id := strings.TrimSuffix(out, "\n")
	require.Regexp(s.t, uuidV7, id, "send prints the new id and a newline only")
	return id
}

// inboxLines runs inbox --json and decodes each line.
func (s *sandbox) inboxLines(agent string) []map[string]any {
	s.t.Helper()
	return decodeLines(s.t, s.ok("inbox", agent, "--json"))
}

func decodeLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &v), "line %q", line)
		lines = append(lines, v)
	}
	return lines
}

func TestSendThenInbox(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	id := s.sendID("--from", "researcher", "--to", "coder", "--text", "hi", "--data", `{"n": 1}`)

	lines := s.inboxLines("coder")
	require.Len(t, lines, 2, "nanobot's task, then the new message")
	assert.Equal(t, "msg_1745659200_researcher", lines[0]["id"], "oldest first")
	assert.Equal(t, "帮我写排序函数", lines[0]["text"])
	assert.Equal(t, float64(3), lines[0]["ttl"], "a null ttl reads as the default")
	assert.Equal(t, []any{}, lines[0]["trace"], "a null trace reads as empty")

	got := lines[1]
	assert.Equal(t, id, got["id"])
	assert.Regexp(t, `^\d{13}_researcher_[0-9a-z]+\.msg\.json$`, got["file"])
	assert.Equal(t, "researcher", got["from"])
	assert.Equal(t, "coder", got["to"])
	assert.Equal(t, "message", got["type"])
	assert.Equal(t, "hi", got["text"])
	assert.Equal(t, float64(2), got["ttl"], "the default hop budget 3, one hop spent")
	assert.Equal(t, []any{"researcher"}, got["trace"])
	assert.Nil(t, got["reply_to"])
	assert.Contains(t, got, "reply_to", "reply_to is written, as null")
	assert.Equal(t, map[string]any{"parts": []any{
		map[string]any{"type": "text", "text": "hi"},
		map[string]any{"type": "data", "data": map[string]any{"n": float64(1)}},
	}}, got["content"])
	ts, err := time.Parse(time.RFC3339Nano, got["timestamp"].(string))
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), ts, time.Minute)

	human := s.ok("inbox", "coder")
	assert.Regexp(t, `(?m)^AGE +FROM +TYPE +ID +TEXT$`, human)
	assert.Regexp(t, `(?m)^(just now|\d+s ago) +researcher \(unverified\) +message +`+id+` +hi \{"n":1\}$`, human)
	assert.Contains(t, human, "task msg_1745659200_researcher pending")
}

func TestSendTaskFields(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	file := filepath.Join(t.TempDir(), "spec.md")
	require.NoError(t, os.WriteFile(file, []byte("# spec"), 0o600))
	id := s.sendID("--from", "researcher", "--to", "coder", "--type", "task", "--file", file,
		"--ttl", "5", "--task-id", "sort-1", "--deadline", "2030-01-02T03:04:05Z",
		"--callback-channel", "feishu", "--callback-chat-id", "oc_1", "--callback-session", "feishu:oc_1")
	reply := s.sendID("--from", "coder", "--to", "researcher", "--type", "task_update",
		"--task-id", "sort-1", "--task-state", "working", "--reply-to", id)

	task := s.inboxLines("coder")[0]
	assert.Equal(t, "task", task["type"])
	assert.Equal(t, float64(4), task["ttl"], "--ttl 5 is the budget: written as 4")
	assert.Equal(t, map[string]any{"id": "sort-1", "state": "pending", "deadline": "2030-01-02T03:04:05.000000+00:00"}, task["task"])
	assert.Equal(t, map[string]any{"channel": "feishu", "chat_id": "oc_1", "session_id": "feishu:oc_1"}, task["callback"])
	assert.Equal(t, []any{map[string]any{"type": "file", "path": file}}, task["content"].(map[string]any)["parts"])

	update := s.inboxLines("researcher")[0]
	assert.Equal(t, reply, update["id"])
	assert.Equal(t, "task_update", update["type"])
	assert.Equal(t, id, update["reply_to"])
	assert.Equal(t, map[string]any{"id": "sort-1", "state": "working"}, update["task"])
}

func TestSendTaskBudget(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.sendID("--from", "a", "--to", "b", "--type", "task", "--text", "x", "--task-id", "t1",
		"--budget-tokens", "20000", "--budget-cost", "0.5")
	assert.Equal(t, map[string]any{"id": "t1", "state": "pending", "budget": map[string]any{"tokens": float64(20000), "cost": 0.5}},
		s.inboxLines("b")[0]["task"])
}

func TestSendDeadlineDuration(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	before := time.Now()
	s.sendID("--from", "a", "--to", "b", "--type", "task", "--text", "x", "--deadline", "10m")
	deadline, err := time.Parse(time.RFC3339Nano, s.inboxLines("b")[0]["task"].(map[string]any)["deadline"].(string))
	require.NoError(t, err)
	assert.WithinDuration(t, before.Add(10*time.Minute), deadline, time.Minute)
}

func TestSendRelativeFileBecomesAbsolute(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	require.NoError(t, os.WriteFile(filepath.Join(s.home, "notes.txt"), []byte("n"), 0o600))
	s.sendID("--from", "a", "--to", "b", "--file", "notes.txt") // the binary runs in s.home
	parts := s.inboxLines("b")[0]["content"].(map[string]any)["parts"].([]any)
	assert.Equal(t, filepath.Join(s.home, "notes.txt"), parts[0].(map[string]any)["path"])
}

func TestSendUsageErrors(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	before := snapshot(t, s.root)
	base := []string{"send", "--from", "researcher", "--to", "coder"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no from", []string{"send", "--to", "coder", "--text", "x"}, "--from is required"},
		{"no to", []string{"send", "--from", "a", "--text", "x"}, "--to is required"},
		{"bad from", []string{"send", "--from", "../etc", "--to", "coder", "--text", "x"}, "--from: invalid agent id"},
		{"bad to", []string{"send", "--from", "a", "--to", "a/b", "--text", "x"}, "--to: invalid agent id"},
		{"unknown type", append(base, "--type", "note", "--text", "x"), `--type "note"`},
		{"unknown task state", append(base, "--type", "task", "--text", "x", "--task-state", "done"), `--task-state "done"`},
		{"data not JSON", append(base, "--data", "{oops"), "--data: want a JSON object"},
		{"data a list", append(base, "--data", "[1,2]"), "--data: want a JSON object"},
		{"data null", append(base, "--data", "null"), "--data: want a JSON object"},
		{"missing file", append(base, "--file", "/no/such/file"), "--file /no/such/file: no such file"},
		{"file a folder", append(base, "--file", s.home), "--file " + s.home + ": is a folder, not a file"},
		{"data and missing file", append(base, "--data", `{"ok": true}`, "--file", "gone.txt"), "--file gone.txt: no such file"},
		{"bad deadline", append(base, "--type", "task", "--text", "x", "--deadline", "tomorrow"), "--deadline: want an RFC 3339 time"},
		{"negative deadline", append(base, "--type", "task", "--text", "x", "--deadline", "-5m"), "--deadline: duration -5m"},
		{"task_update without task id", append(base, "--type", "task_update", "--text", "x"), "needs --task-id"},
		{"deadline on an update", append(base, "--type", "task_update", "--task-id", "t", "--deadline", "5m"), "--deadline needs --type task"},
		{"task flags on a message", append(base, "--text", "x", "--task-id", "t"), "need --type task or task_update"},
		{"callback on a message", append(base, "--text", "x", "--callback-channel", "feishu"), "need --type task"},
		{"callback on an update", append(base, "--type", "task_update", "--task-id", "t", "--callback-session", "s"), "need --type task"},
		{"callback without channel", append(base, "--type", "task", "--text", "x", "--callback-chat-id", "c"), "need --callback-channel"},
		{"budget on a message", append(base, "--text", "x", "--budget-tokens", "5"), "--budget-tokens and --budget-cost need --type task"},
		{"negative budget", append(base, "--type", "task", "--text", "x", "--budget-cost", "-1"), "want a positive number"},
		{"no content", base, "needs content"},
		{"task without content", append(base, "--type", "task"), "needs content"},
		{"ttl zero", append(base, "--text", "x", "--ttl", "0"), "--ttl 0: want 1 or more"},
		{"ttl not a number", append(base, "--text", "x", "--ttl", "many"), `invalid argument "many" for "--ttl"`},
		{"unknown flag", append(base, "--text", "x", "--urgent"), "unknown flag: --urgent"},
		{"argument", append(base, "--text", "x", "extra"), `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.run(tt.args...)
			assertOneLineError(t, r, 2, tt.want)
			assert.Contains(t, r.stderr, "run 'switchboard help send'")
			requireUnchanged(t, before, s.root, "a refused send")
		})
	}
}

func TestSendToInsecureRootFails(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	require.NoError(t, os.Chmod(s.root, 0o777))
	before := snapshot(t, s.root)
	r := s.run("send", "--from", "a", "--to", "b", "--text", "x")
	assertOneLineError(t, r, 1, "writable by group or others")
	requireUnchanged(t, before, s.root, "a refused send")
}

// A recipient with neither a card nor an inbox is most often a typo: send
// refuses it, naming the closest agent, unless --new says the agent has
// simply not started yet. An agent with a card (offline or not) or with an
// inbox gets its message.
func TestSendRefusesAnUnknownAgentWithoutNew(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures() // researcher (offline), coder (online)
	r := s.run("send", "--from", "boss", "--to", "codr", "--text", "hi")
	assertOneLineError(t, r, 2, `no agent "codr" is registered and it has no inbox (did you mean "coder"?); pass --new`)
	assert.Empty(t, s.msgFiles("codr", "inbox"), "nothing written")
	s.ok("send", "--from", "boss", "--to", "researcher", "--text", "offline agents with a card still queue")
	s.ok("send", "--new", "--from", "boss", "--to", "newcomer", "--text", "waits for it")
	s.ok("send", "--from", "boss", "--to", "newcomer", "--text", "it has an inbox now")
	assert.Len(t, s.msgFiles("newcomer", "inbox"), 2)
}
