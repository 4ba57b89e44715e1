package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/config"
)

// thinRun runs Main as switchboard does (no Extras), recording what it
// hands to switchboard-full: handed is nil when it handed nothing.
func thinRun(t *testing.T, args ...string) (code int, handed []string, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errOut, Environ: []string{"HOME=" + t.TempDir()}, Version: "1.2.3",
		Delegate: func(a []string) int { handed = append([]string{}, a...); return 7 }}
	code = Main(context.Background(), args, env)
	return code, handed, out.String(), errOut.String()
}

// writeConfig writes a config file with the given channels.mailbox keys.
func writeConfig(t *testing.T, mailboxKeys string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"channels": {"mailbox": {`+mailboxKeys+`}}}`), 0o600))
	return path
}

// The commands that need the Extras are handed over whole, before they
// do anything, with the exit status of switchboard-full; the others run
// here.
func TestThinHandsOver(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// A backend this binary lacks (the tests of this package link nats).
	nats := writeConfig(t, `"backend": "elsewhere", "elsewhere": {"url": "x://127.0.0.1:1"}`)
	bad := writeConfig(t, `"nosuchkey": 1`)
	tracing := writeConfig(t, `"agentId": "coder"`)
	for _, tt := range []struct {
		name string
		args []string
		hand bool
	}{
		{"run", []string{"run"}, true},
		{"demo", []string{"demo", "--timeout", "1s"}, true},
		{"mcp", []string{"--root", root, "mcp", "--agent", "x"}, true},
		{"config check", []string{"config", "check"}, true},
		{"a backend switchboard lacks", []string{"--config", nats, "inbox", "coder"}, true},
		{"a config switchboard finds fault with", []string{"--config", bad, "agents"}, true},
		{"completion on that backend", []string{"--config", nats, "__complete", "recv", ""}, true},
		{"version", []string{"version"}, false},
		{"the folder store", []string{"--root", root, "inbox", "coder"}, false},
		{"--root over a nats config", []string{"--config", tracing, "--root", root, "agents"}, false},
		{"completion on the folder store", []string{"--root", root, "__complete", "recv", ""}, false},
		{"a usage error of a command that would be handed over", []string{"demo", "--timeout", "0s"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, handed, stdout, _ := thinRun(t, tt.args...)
			if !tt.hand {
				assert.Nil(t, handed)
				assert.NotEqual(t, 7, code)
				return
			}
			assert.Equal(t, tt.args, handed, "the whole command line")
			assert.Equal(t, 7, code, "switchboard-full's exit status")
			assert.Empty(t, stdout, "nothing printed before the hand-over")
		})
	}
}

// Without a way to hand over, the command fails with a line that says
// what it needed.
func TestThinCannotHandOver(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"run"}, Env{Stdout: &out, Stderr: &errOut, Environ: []string{"HOME=" + t.TempDir()}})
	assert.Equal(t, ExitFailure, code)
	assert.Equal(t, "switchboard: run needs the full command line: this binary was built without it and cannot run switchboard-full\n", errOut.String())
}

// With the Extras, run calls RunHost with the config and a tracing hook
// that starts tracing for the host's agent.
func TestFullRunsHost(t *testing.T) {
	t.Parallel()
	var got *config.Config
	var traced string
	flushed := false
	x := &Extras{
		RunHost: func(_ context.Context, cfg *config.Config, o HostOptions) error {
			got = cfg
			stop, err := o.Tracing("coder")
			require.NoError(t, err)
			stop()
			return nil
		},
		StartTracing: func(_ context.Context, _ config.TracingConfig, o TracingOptions) (func(context.Context) error, string, error) {
			traced = o.Agent
			return func(context.Context) error { flushed = true; return nil }, "", nil
		},
	}
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"run", "--config", writeConfig(t, `"agentId": "coder"`)},
		Env{Stdout: &out, Stderr: &errOut, Environ: []string{"HOME=" + t.TempDir()}, Extras: x})
	assert.Equal(t, ExitOK, code, errOut.String())
	require.NotNil(t, got)
	assert.Equal(t, "coder", traced)
	assert.True(t, flushed)
}

func TestTracingMayBeOn(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		enabled bool
		environ []string
		want    bool
	}{
		{false, nil, false},
		{true, nil, true},
		{false, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://x:4318"}, true},
		{false, []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://x:4318/v1/traces"}, true},
		{false, []string{"OTEL_TRACES_EXPORTER=otlp"}, true},
		{false, []string{"OTEL_TRACES_EXPORTER=bogus"}, true}, // switchboard-full says why it is wrong
		{false, []string{"OTEL_TRACES_EXPORTER=none", "OTEL_EXPORTER_OTLP_ENDPOINT="}, false},
		{false, []string{"OTEL_SERVICE_NAME=x"}, false},
	} {
		assert.Equal(t, tt.want, tracingMayBeOn(config.TracingConfig{Enabled: tt.enabled}, tt.environ), "%v %v", tt.enabled, tt.environ)
	}
}

// In switchboard, tracing that may be on hands the command over; off, it
// is a no-op.
func TestThinTracing(t *testing.T) {
	t.Parallel()
	a := &app{env: Env{Environ: []string{"OTEL_TRACES_EXPORTER=otlp"}}}
	_, err := a.startTracing(t.Context(), config.TracingConfig{}, "coder", nil)
	require.ErrorIs(t, err, errNeedsFull)
	assert.True(t, a.neededFull)
	a = &app{env: Env{}}
	stop, err := a.startTracing(t.Context(), config.TracingConfig{}, "coder", nil)
	require.NoError(t, err)
	stop()
}

func TestCommandName(t *testing.T) {
	t.Parallel()
	for args, want := range map[string][]string{
		"__complete": {"--config", "c.json", "--wide", "__complete", "recv"},
		"inbox":      {"--root=/r", "--config=c", "inbox", "x"},
		"send":       {"send", "--root", "r"},
		"":           {"--root", "r"},
	} {
		assert.Equal(t, args, commandName(want), "%q", want)
	}
}

// --version and -v print the version line; with --help, help wins.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	line := "switchboard 1.2.3 " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
	for _, args := range [][]string{{"--version"}, {"-v"}, {"--root", t.TempDir(), "--version"}} {
		code, _, out, errOut := thinRun(t, args...)
		assert.Equal(t, ExitOK, code)
		assert.Equal(t, line, out, "%q", args)
		assert.Empty(t, errOut)
	}
	code, _, out, _ := thinRun(t, "--version", "--help")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, "Available Commands:")
	code, _, out, _ = thinRun(t, "help")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, "-v, --version")
}
