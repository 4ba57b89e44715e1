package channelhost

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TeamConfig writes the config of one agent of a team in dir and returns
// its path: its workspace in dir, the scripted provider, the mailbox of
// root with capabilities, and the channels given (channels.mailbox is
// added). Start runs it in mode Host.
func TeamConfig(t *testing.T, dir, root, agent string, capabilities []string, chans map[string]any) string {
	t.Helper()
	all := maps.Clone(chans)
	if all == nil {
		all = map[string]any{}
	}
	all["mailbox"] = map[string]any{"enabled": true, "agentId": agent, "mailboxesRoot": root,
		"capabilities": capabilities, "description": agent + " of the team"}
	data, err := json.MarshalIndent(map[string]any{
		"agents":   map[string]any{"defaults": map[string]any{"workspace": filepath.Join(dir, agent), "provider": "scripted"}},
		"channels": all,
	}, "", "  ")
	require.NoError(t, err)
	path := filepath.Join(dir, agent+".json")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}
