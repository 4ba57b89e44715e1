package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// switchboard alone (no switchboard-full beside it nor on PATH) runs the
// mailbox commands, and says what to install for the others.
func TestWithoutSwitchboardFull(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	alone := filepath.Join(t.TempDir(), "switchboard")
	data, err := os.ReadFile(bin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(alone, data, 0o700))
	run := func(args ...string) result {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
		defer cancel()
		cmd := exec.CommandContext(ctx, alone, append([]string{"--root", s.root}, args...)...)
		cmd.Env = append(s.env(), "PATH="+t.TempDir())
		out, err := cmd.Output()
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return result{stdout: string(out), stderr: string(stderr), code: cmd.ProcessState.ExitCode()}
	}
	r := run("send", "--from", "alice", "--to", "coder", "--new", "--text", "hi")
	assert.Equal(t, 0, r.code, r.stderr)
	r = run("inbox", "coder")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "hi")
	for _, args := range [][]string{{"run"}, {"mcp"}, {"config", "check"}} {
		r = run(args...)
		assert.Equal(t, 1, r.code, "%v", args)
		assert.Equal(t, "switchboard: switchboard-full not found beside switchboard nor on PATH: install switchboard with its companions with go install ./cmd/... in a clone of the repository, or go install github.com/switchboard-dev/switchboard/cmd/...@latest\n", r.stderr)
	}
}

// A command handed to switchboard-full keeps its process: the pid a
// script started is the one that runs it and gets its signals.
func TestHandOverKeepsTheProcess(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	s := newSandbox(t)
	p := s.start("mcp", "--listen", "127.0.0.1:0")
	p.awaitStderr("serving MCP on")
	cmdline, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.cmd.Process.Pid), "cmdline"))
	require.NoError(t, err)
	assert.Contains(t, string(cmdline), "switchboard-full", "the same pid runs switchboard-full")
	p.signal(syscall.SIGTERM)
	assert.Equal(t, 0, p.wait())
}

// switchboard runs no text/template: cobra's version and usage templates
// would make the linker keep every exported method of every type.
func TestNoTemplates(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	require.NoError(t, err)
	assert.NotContains(t, string(out), "text/template.(*state).evalField")
}
