package main_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunHost(t *testing.T) {
	s := newSandbox(t)
	conf := filepath.Join(s.home, "host.json")
	require.NoError(t, os.WriteFile(conf, []byte(`{"channels": {"mailbox": {"enabled": true, "agentId": "host",
		"description": "a host", "mailboxesRoot": "/elsewhere"}}}`), 0o600))

	host := s.start("--config", conf, "run") // --root replaces mailboxesRoot
	host.awaitStderr("host running")
	assert.Equal(t, "idle", agentCard(t, s, "host")["effective_status"])
	s.sendID("--from", "researcher", "--to", "host", "--text", "ping")
	host.awaitStderr(`content=ping`)

	host.signal(sigterm)
	assert.Equal(t, 0, host.wait(), "stderr:\n%s", host.stderrSoFar())
	assert.Equal(t, "offline", agentCard(t, s, "host")["status"])
	assert.Len(t, s.msgFiles("host", "processed"), 1)
}

func TestRunWithoutChannels(t *testing.T) {
	s := newSandbox(t)
	assertOneLineError(t, s.run("run"), 1, "no channel is enabled")

	conf := filepath.Join(s.home, "bad.json")
	require.NoError(t, os.WriteFile(conf, []byte(`{"channels": {"mailbox": {"enabled": true}}}`), 0o600))
	assertOneLineError(t, s.run("--config", conf, "run"), 1, "channels.mailbox.agentId: required")
}
