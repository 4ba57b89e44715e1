package main_test

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestRecvReaderGoesAway: when the program reading recv's output exits
// (switchboard recv coder | head -1), recv stops cleanly at its next
// message: exit 0, the agent marked offline, and the message it could not
// print named on stderr.
func TestRecvReaderGoesAway(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	cmd := s.command(ctx, "recv", "worker")
	out, stdout, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout = stdout
	var errOut strings.Builder
	cmd.Stderr = &errOut
	require.NoError(t, cmd.Start())
	stdout.Close()

	s.sendID("--from", "researcher", "--to", "worker", "--text", "first")
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	assert.Regexp(t, `^\d\d:\d\d:\d\d researcher \(unverified\) first\n$`, line)
	require.NoError(t, out.Close()) // the reader is gone

	second := s.sendID("--from", "researcher", "--to", "worker", "--text", "second")
	require.NoError(t, cmd.Wait(), "exit 0; stderr: %s", errOut.String())
	assert.Equal(t, "listening as worker in "+s.root+" (Ctrl-C to stop)\n"+
		"switchboard: message "+second+" arrived after stdout was closed; not printed\n", errOut.String())
	assert.Equal(t, "offline", agentCard(t, s, "worker")["status"], "marked offline on the way out")
}
