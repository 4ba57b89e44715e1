package cli

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/config"
)

// mainIn runs Main with args in a fresh home, in parallel with others
// (HOME of the environment it is given, not of the process).
func mainIn(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errOut, Environ: []string{"HOME=" + t.TempDir()}, Version: "1.2.3"}
	code = Main(context.Background(), args, env)
	return code, out.String(), errOut.String()
}

// Tracing that nothing turns on is a no-op.
func TestTracingOff(t *testing.T) {
	t.Parallel()
	a := &app{env: Env{}}
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
		code, out, errOut := mainIn(t, args...)
		assert.Equal(t, ExitOK, code)
		assert.Equal(t, line, out, "%q", args)
		assert.Empty(t, errOut)
	}
	code, out, _ := mainIn(t, "--version", "--help")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, "Available Commands:")
	code, out, _ = mainIn(t, "help")
	assert.Equal(t, ExitOK, code)
	assert.Contains(t, out, "-v, --version")
}
