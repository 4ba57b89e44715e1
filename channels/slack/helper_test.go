package slack_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/switchboard-dev/switchboard/agentloop/provider/scripted"    // the agents' provider
	_ "github.com/switchboard-dev/switchboard/channels/mailbox"               // the agents' mailbox
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore" // and its backend
	"github.com/switchboard-dev/switchboard/internal/channelhost"
)

// TestHelperHost is the helper process of the tests of a second process
// (channelhost.Serve).
func TestHelperHost(t *testing.T) { channelhost.Serve(t) }

// startHelper runs TestHelperHost in mode with the config file at path.
func startHelper(t *testing.T, mode, path string) *channelhost.Helper {
	t.Helper()
	return channelhost.Start(t, "TestHelperHost", mode, path, false)
}

// writeConfig writes doc as a config file in dir and returns its path.
func writeConfig(t *testing.T, dir, name string, doc map[string]any) string {
	t.Helper()
	data, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}
