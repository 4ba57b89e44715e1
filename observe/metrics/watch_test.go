package metrics_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	_ "github.com/switchboard-dev/switchboard/agentloop/provider/scripted" // the host's modules
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
	"github.com/switchboard-dev/switchboard/observe/metrics"
)

// Watch reads the guard rails of the host it watches: a send refused by
// the mailbox's perEdge limit is counted under its limit, and the budget
// and approval series are there at 0.
func TestWatchCountsTheHostsGuardRails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root := filepath.Join(dir, "mailboxes")
	require.NoError(t, os.Mkdir(root, 0o700))
	doc := map[string]any{
		"agents": map[string]any{"defaults": map[string]any{"workspace": filepath.Join(dir, "workspace")}},
		"channels": map[string]any{"mailbox": map[string]any{"enabled": true, "agentId": "lead", "mailboxesRoot": root,
			"limits": map[string]any{"perEdge": map[string]any{"rate": 1, "per": "hour", "burst": 1}}}},
	}
	data, err := json.Marshal(doc)
	require.NoError(t, err)
	path := filepath.Join(dir, "lead.json")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	cfg, err := config.Load(config.LoadOptions{Path: path})
	require.NoError(t, err)

	m := metrics.New(metrics.Options{})
	h, err := host.New(cfg, host.Options{Hooks: []agent.Hook{m.Hook()}})
	require.NoError(t, err)
	m.Watch(h)
	require.NoError(t, h.Start(context.Background()))
	t.Cleanup(func() { _ = h.Stop() })

	ctx := testkit.Ctx(t)
	ch, ok := h.Channel(mailbox.ChannelName)
	require.True(t, ok)
	mb := ch.(*mailbox.Channel)
	_, err = mb.Post(ctx, route.Request{To: "coder", Text: "one"})
	require.NoError(t, err)
	_, err = mb.Post(ctx, route.Request{To: "coder", Text: "two"})
	require.ErrorIs(t, err, route.ErrRateLimited)

	got := guardSamples(t, m)
	assert.Equal(t, 1.0, got[`switchboard_limits_tripped_total{agent="lead",limit="perEdge"}`])
	assert.Equal(t, 0.0, got[`switchboard_limits_tripped_total{agent="lead",limit="perAgent"}`])
	for _, key := range []string{
		`switchboard_breakers_open{agent="lead"}`,
		`switchboard_budget_refusals_total{agent="lead",budget="daily"}`,
		`switchboard_approvals_requested_total{agent="lead",kind="tool"}`,
	} {
		v, ok := got[key]
		assert.True(t, ok, "%s is there", key)
		assert.Zero(t, v, key)
	}
	assert.Equal(t, 1.0, value(t, gather(t, m), "switchboard_mailbox_messages_sent_total", map[string]string{"agent": "lead", "type": "message"}))
}
