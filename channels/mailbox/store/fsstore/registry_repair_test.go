package fsstore

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A corrupt registry does not hide the live agents: readers see the cards
// that can be read and those of agents with a heartbeat file, and
// RepairRegistry writes them back, keeping a copy of the corrupt file.
func TestRepairRegistryFromLiveAgents(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := context.Background()
	beat := registryTestNow.Add(-time.Second)
	require.NoError(t, s.writeHeartbeat("live", beat))
	writeRegistryRaw(t, s, []byte(`{"coder": {"agent_id": "coder", "status": "idle"}, "torn": {`))

	cards, err := s.Cards(ctx)
	require.NoError(t, err)
	byID := map[string]bool{}
	for _, c := range cards {
		byID[c.AgentID] = true
	}
	assert.True(t, byID["coder"], "a readable entry")
	assert.True(t, byID["live"], "an agent with a heartbeat file")

	rep, err := s.RepairRegistry(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"coder"}, rep.Salvaged)
	assert.Equal(t, []string{"live"}, rep.Rebuilt)
	assert.NotEmpty(t, rep.Copy)
	entries, err := readRegistryFile(s.registryPath())
	require.NoError(t, err)
	parsed, err := parseRegistry(entries.data)
	require.NoError(t, err, "the registry parses again")
	assert.Contains(t, parsed, "live")
	again, err := s.RepairRegistry(ctx)
	require.NoError(t, err)
	assert.Empty(t, again.Copy, "a registry that parses is left alone")
}
