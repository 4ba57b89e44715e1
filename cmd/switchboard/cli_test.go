package main_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	assert.Equal(t, "switchboard "+testVersion+" "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+"\n", s.ok("version"))
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	tests := []struct {
		name string
		args []string
		want string
		hint string
	}{
		{"unknown command", []string{"sned"}, `unknown command "sned" for "switchboard" (did you mean "send"?)`, "run 'switchboard help'"},
		{"unknown global flag", []string{"--verbose", "agents"}, "unknown flag: --verbose", "run 'switchboard help'"},
		{"unknown flag", []string{"agents", "--all"}, "unknown flag: --all", "run 'switchboard help agents'"},
		{"missing argument", []string{"inbox"}, "missing argument AGENT", "run 'switchboard help inbox'"},
		{"extra argument", []string{"agents", "x"}, `unexpected argument "x"`, "run 'switchboard help agents'"},
		{"bad agent id", []string{"inbox", "a b"}, "invalid agent id", "run 'switchboard help inbox'"},
		{"unknown help topic", []string{"help", "sned"}, `unknown help topic "sned"`, "run 'switchboard help'"},
		{"missing named config", []string{"--config", "/no/such.json", "agents"}, "--config /no/such.json: no such file", "run 'switchboard help agents'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.run(tt.args...)
			assertOneLineError(t, r, 2, tt.want)
			assert.Contains(t, r.stderr, tt.hint)
		})
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, args := range [][]string{{"help"}, {"--help"}, {"help", "send"}, {"send", "--help"}} {
		out := s.ok(args...)
		assert.Contains(t, out, "Usage:", "%v", args)
	}
	assert.Contains(t, s.ok("help", "recv"), "Recv is a debugging receiver")
	assert.Contains(t, s.ok("completion", "bash"), "bash completion")
}

func TestConfigFile(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	other := filepath.Join(s.home, "other")
	require.NoError(t, os.Mkdir(other, 0o700))
	conf := filepath.Join(s.home, "coder.json")
	require.NoError(t, os.WriteFile(conf, []byte(`{"channels": {"mailbox": {"agentId": "coder",
		"mailboxesRoot": "`+other+`", "defaultTtl": 7, "offlineAfter": 60}}}`), 0o600))

	// The root comes from the config when --root is not given.
	out := runWithout(t, s, "--config", conf, "send", "--new", "--from", "a", "--to", "b", "--text", "x")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Len(t, filesIn(t, other, "b", "inbox"), 1)
	assert.Empty(t, files(t, s.root))

	// --root wins over the config; defaultTtl applies.
	s.ok("--config", conf, "send", "--new", "--from", "a", "--to", "b", "--text", "x")
	assert.Equal(t, float64(6), s.inboxLines("b")[0]["ttl"])

	// A bad config is a failure, naming the key.
	require.NoError(t, os.WriteFile(conf, []byte(`{"channels": {"mailbox": {"defaultTTL": 7}}}`), 0o600))
	r := s.run("--config", conf, "agents")
	assertOneLineError(t, r, 1, "channels.mailbox.defaultTTL")

	// The default file, ~/.nanobot/config.json, is read when present.
	require.NoError(t, os.MkdirAll(filepath.Join(s.home, ".nanobot"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(s.home, ".nanobot", "config.json"),
		[]byte(`{"channels": {"mailbox": {"mailboxesRoot": "~/other"}}}`), 0o600))
	out = runWithout(t, s, "send", "--new", "--from", "a", "--to", "c", "--text", "x")
	require.Equal(t, 0, out.code, out.stderr)
	assert.Len(t, filesIn(t, other, "c", "inbox"), 1, "~ expanded")
}

// runWithout runs the binary without --root.
func runWithout(t *testing.T, s *sandbox, args ...string) result {
	t.Helper()
	cmd := s.command(t.Context(), args...)
	cmd.Args = append(cmd.Args[:1], args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run()
	return result{stdout: out.String(), stderr: errOut.String(), code: cmd.ProcessState.ExitCode()}
}

func filesIn(t *testing.T, root string, parts ...string) []string {
	t.Helper()
	return files(t, filepath.Join(append([]string{root}, parts...)...))
}
