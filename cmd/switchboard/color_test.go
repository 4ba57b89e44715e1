//go:build linux

package main_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// openPTY opens a pseudo-terminal and returns its two ends.
func openPTY(t *testing.T) (master, tty *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	ioctl := func(req uintptr, arg *uint32) {
		t.Helper()
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), req, uintptr(unsafe.Pointer(arg)))
		require.Zero(t, errno, "ioctl %#x", req)
	}
	var unlock, n uint32
	ioctl(syscall.TIOCSPTLCK, &unlock)
	ioctl(syscall.TIOCGPTN, &n)
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	return master, tty
}

// runOnTerminal runs the binary with stdout on a terminal and returns what
// it printed there.
func (s *sandbox) runOnTerminal(env []string, args ...string) string {
	s.t.Helper()
	master, tty := openPTY(s.t)
	defer master.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	cmd := s.command(ctx, args...)
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout = tty
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	require.NoError(s.t, cmd.Start())
	tty.Close() // the child holds the terminal now: reading ends when it exits
	var out bytes.Buffer
	_, err := io.Copy(&out, master)
	if !errors.Is(err, syscall.EIO) { // EIO: every holder of the terminal closed it
		require.NoError(s.t, err)
	}
	require.NoError(s.t, cmd.Wait(), "stderr: %s", errOut.String())
	return out.String()
}

func TestColourOnlyOnTerminal(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	green, grey, yellow := "\x1b[32midle\x1b[0m", "\x1b[90moffline\x1b[0m", "\x1b[33mwarn\x1b[0m"

	agents := s.runOnTerminal(nil, "agents")
	assert.Contains(t, agents, green, "idle in green")
	assert.Contains(t, agents, grey, "offline in grey")
	assert.Regexp(t, `(?m)^AGENT +\x1b\[39mSTATUS\x1b\[0m +INBOX`, agents, "the header is painted too, so columns stay aligned")
	assert.Regexp(t, `(?m)^coder \(unverified\) +\x1b\[32midle\x1b\[0m +1 +0/3 `, agents)
	assert.Regexp(t, `(?m)^researcher \(unverified\) +\x1b\[90moffline\x1b\[0m +0 +1/3 `, agents)
	assert.Contains(t, s.runOnTerminal(nil, "doctor"), yellow, "warnings in yellow")

	for _, env := range [][]string{{"NO_COLOR=1"}, {"NO_COLOR="}} {
		plain := s.runOnTerminal(env, "agents")
		assert.NotContains(t, plain, "\x1b[", "%v turns colour off", env)
		assert.Regexp(t, `(?m)^coder \(unverified\) +idle +1 +0/3 `, plain)
	}
	assert.NotContains(t, s.ok("agents"), "\x1b[", "no colour into a pipe")
	assert.NotContains(t, s.ok("doctor"), "\x1b[", "no colour into a pipe")
}
