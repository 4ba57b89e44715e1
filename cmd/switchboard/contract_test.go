package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flagLine matches a flag in cobra's help: "  -h, --help   help for x".
var flagLine = regexp.MustCompile(`^\s+(?:-[a-zA-Z], )?--([a-z][a-z-]*)`)

// helpFlags returns the long names of the flags listed under heading
// ("Flags:" or "Global Flags:") in a help text.
func helpFlags(help, heading string) []string {
	var names []string
	in := false
	for _, line := range strings.Split(help, "\n") {
		switch {
		case line == heading:
			in = true
		case in && strings.TrimSpace(line) == "":
			in = false
		case in:
			if m := flagLine.FindStringSubmatch(line); m != nil {
				names = append(names, m[1])
			}
		}
	}
	slices.Sort(names)
	return names
}

// TestContractFlags holds the command line to DESIGN.md's contract: every
// command and flag it names exists under exactly that name.
func TestContractFlags(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	contract := map[string][]string{
		"send": {"from", "to", "type", "text", "data", "file", "reply-to", "ttl", "task-id", "task-state",
			"deadline", "callback-channel", "callback-chat-id", "callback-session", "budget-tokens", "budget-cost",
			"subject", "priority", "expects-reply", "reply-by", "for-task", "new"},
		"log":     {"agent", "kind", "since", "until", "id", "thread", "task", "json"},
		"pending": {"task", "overdue", "json"},
		"recv":    {"count", "json", "log-level", "log-format"},
		"inbox":   {"json", "limit", "kind", "since"},
		"agents":  {"capability", "role", "by-role", "json"},
		"thread":  {"task", "json"},
		"watch":   {"json", "log-level", "log-format"},
		"stats":   {"window", "watch", "interval", "json"},
		"doctor":  {"fix", "json"},
		"version": {"json"},
		"mcp":     {"agent", "description", "capability", "listen", "token-file", "agent-tokens", "log-level", "log-format"},
	}
	for cmd, want := range contract {
		t.Run(cmd, func(t *testing.T) {
			help := s.ok("help", cmd)
			want := slices.Sorted(slices.Values(want))
			assert.Equal(t, want, helpFlags(help, "Flags:"), "flags of %s", cmd)
			assert.Equal(t, []string{"config", "root", "wide"}, helpFlags(help, "Global Flags:"))
		})
	}

	help := s.ok("help", "config", "check")
	assert.Equal(t, []string{"json"}, helpFlags(help, "Flags:"), "flags of config check")
	assert.Equal(t, []string{"config", "root", "wide"}, helpFlags(help, "Global Flags:"))

	top := s.ok("help")
	assert.Equal(t, []string{"config", "root", "version", "wide"}, helpFlags(top, "Flags:"))
	for _, cmd := range []string{"run", "send", "recv", "inbox", "agents", "thread", "watch", "doctor", "version", "help", "completion", "config"} {
		assert.Regexp(t, `(?m)^  `+cmd+` `, top, "switchboard help lists %s", cmd)
	}
	assert.Contains(t, s.ok("help", "watch"), "switchboard watch [AGENT] [--json]")
	assert.Contains(t, s.ok("help", "recv"), "switchboard recv AGENT [--count N] [--json]")
}

// snakeKey is a stable --json field name.
var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// assertSnakeCase checks every key of v, recursively, except inside the
// free-form "data" of a data part and a message's "metadata".
func assertSnakeCase(t *testing.T, v any, where string) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			assert.Regexp(t, snakeKey, k, "field %s.%s", where, k)
			if k != "data" && k != "metadata" {
				assertSnakeCase(t, sub, where+"."+k)
			}
		}
	case []any:
		for _, sub := range v {
			assertSnakeCase(t, sub, where+"[]")
		}
	}
}

// keys returns the sorted keys of an object.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestJSONOutput checks every --json output: one object per line, snake_case
// names, and the documented fields (docs/cli.md).
func TestJSONOutput(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	file := filepath.Join(s.home, "notes.md")
	require.NoError(t, os.WriteFile(file, []byte("# notes"), 0o600))
	id := s.sendID("--from", "researcher", "--to", "coder", "--reply-to", "msg_1745659260_coder", "--text", "hi",
		"--data", `{"CamelCase": {"Free Form": 1}}`, "--file", file)

	outputs := map[string]string{
		"inbox":  s.ok("inbox", "coder", "--json"),
		"agents": s.ok("agents", "--json"),
		"thread": s.ok("thread", id, "--json"),
		"doctor": s.ok("doctor", "--json"),
	}
	recv := s.start("recv", "coder", "--count", "2", "--json")
	outputs["recv"] = recv.next(recv.stdout, "recv") + "\n" + recv.next(recv.stdout, "recv") + "\n"
	require.Equal(t, 0, recv.wait())

	for cmd, out := range outputs {
		require.True(t, strings.HasSuffix(out, "\n"), "%s: lines end with a newline", cmd)
		for _, line := range decodeLines(t, out) {
			assertSnakeCase(t, line, cmd)
		}
	}

	agent := decodeLines(t, outputs["agents"])[0]
	for _, k := range []string{"agent_id", "description", "capabilities", "status", "allow_from", "max_concurrent_tasks",
		"current_tasks", "registered_at", "last_heartbeat", "effective_status", "inbox_depth", "registered"} {
		assert.Contains(t, agent, k, "agents --json")
	}
	assert.Equal(t, []string{"agent", "check", "detail", "fixable", "fixed", "path", "severity"},
		keys(decodeLines(t, outputs["doctor"])[0]), "doctor --json")
	for _, line := range decodeLines(t, outputs["recv"]) {
		assert.Subset(t, keys(line), []string{"channel", "chat_id", "content", "mailbox", "sender_id", "session_key", "timestamp"}, "recv --json")
	}
	msg := decodeLines(t, outputs["inbox"])[1]
	for _, k := range []string{"file", "text", "id", "from", "to", "timestamp", "type", "ttl", "trace", "content", "reply_to", "metadata"} {
		assert.Contains(t, msg, k, "inbox --json")
	}
	assert.Contains(t, decodeLines(t, outputs["thread"])[0], "depth", "thread --json")
}

// TestFailuresAreOneLine runs every kind of failure that is not the
// caller's fault: exit status 1, nothing on stdout, one line on stderr.
func TestFailuresAreOneLine(t *testing.T) {
	t.Parallel()
	insecure := func(s *sandbox) { require.NoError(t, os.Chmod(s.root, 0o777)) }
	rootIsFile := func(s *sandbox) {
		require.NoError(t, os.Remove(s.root))
		require.NoError(t, os.WriteFile(s.root, nil, 0o600))
	}
	corruptRegistry := func(s *sandbox) { s.writeFile("_registry.json", `{"coder": {}}}`) }
	symlinkedInbox := func(s *sandbox) {
		require.NoError(t, os.Mkdir(filepath.Join(s.root, "coder"), 0o700))
		require.NoError(t, os.Symlink(s.home, filepath.Join(s.root, "coder", "inbox")))
	}
	badConfig := func(s *sandbox) {
		require.NoError(t, os.MkdirAll(filepath.Join(s.home, ".nanobot"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(s.home, ".nanobot", "config.json"), []byte(`{"channels": {"mailbox": {"pollInterval": "often"}}}`), 0o600))
	}
	send := []string{"send", "--new", "--from", "a", "--to", "coder", "--text", "x"}
	tests := []struct {
		name  string
		setup func(*sandbox)
		args  []string
		want  string
	}{
		{"send to an insecure root", insecure, send, "writable by group or others"},
		{"inbox of an insecure root", insecure, []string{"inbox", "coder"}, "writable by group or others"},
		{"agents of an insecure root", insecure, []string{"agents"}, "writable by group or others"},
		{"watch an insecure root", insecure, []string{"watch"}, "writable by group or others"},
		{"recv in an insecure root", insecure, []string{"recv", "coder"}, "writable by group or others"},
		{"send to a root that is a file", rootIsFile, send, "not a directory"},
		{"agents of a root that is a file", rootIsFile, []string{"agents", "--json"}, "not a directory"},
		{"symlinked inbox", symlinkedInbox, []string{"inbox", "coder", "--json"}, "is a symlink"},
		{"send into a symlinked inbox", symlinkedInbox, send, "symlink"},
		{"bad config value", badConfig, []string{"agents"}, "channels.mailbox.pollInterval"},
		{"unknown message", func(*sandbox) {}, []string{"thread", "msg_1_nobody", "--json"}, "message msg_1_nobody not found"},
		{"doctor finds an error", corruptRegistry, []string{"doctor"}, "doctor: 1 error(s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSandbox(t)
			tt.setup(s)
			r := s.run(tt.args...)
			if tt.args[0] == "doctor" {
				r.stdout = "" // the findings are printed before the verdict
			}
			assertOneLineError(t, r, 1, tt.want)
			assert.NotContains(t, r.stderr, "run 'switchboard help", "a failure is not a usage error")
		})
	}
}
