package mailboxtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testChannelUsageRecorded: what a turn cost is an audit entry of kind
// usage, named after the agent, read back by another process with its
// model and tokens; the agent's own state records survive a restart.
func (s *suite) testChannelUsageRecorded(t *testing.T) {
	w := s.world(t)
	alice := w.startAgent(t, "alice", nil)
	ctx := testkit.Ctx(t)
	require.NoError(t, alice.ch.SaveState(ctx, "usage-today", []byte(`{"day":"2026-05-02","tokens":7}`)))
	alice.ch.RecordUsage(ctx, store.Event{MessageID: "m-usage", ThreadID: "th-1", TaskID: "task-1",
		Model: "gpt-x", InputTokens: 1200, OutputTokens: 80})

	if storetest.Has(t, s.feat.Audit(), alice.be) {
		e := alice.events.WaitKind(t, store.EventUsage, testkit.ByID("m-usage"))
		assert.Equal(t, "alice", e.Agent)
		if r := w.open(t, nil); storetest.Has(t, s.feat.AuditRead(), r) {
			for _, e := range storetest.WaitAudit(t, r, "m-usage", store.EventUsage) {
				if e.MessageID == "m-usage" {
					assert.Equal(t, store.Event{Time: e.Time, Kind: store.EventUsage, Agent: "alice", MessageID: "m-usage",
						ThreadID: "th-1", TaskID: "task-1", Model: "gpt-x", InputTokens: 1200, OutputTokens: 80}, e)
					assert.False(t, e.Time.IsZero())
				}
			}
		}
	}

	alice.stop(t)
	_, err := alice.ch.LoadState(ctx, "usage-today")
	assert.ErrorIs(t, err, mailbox.ErrNotRunning)
	again := w.startOn(t, w.open(t, nil), testkit.NewEvents(), "alice", nil)
	data, err := again.ch.LoadState(ctx, "usage-today")
	require.NoError(t, err)
	assert.JSONEq(t, `{"day":"2026-05-02","tokens":7}`, string(data), "kept across a restart")
}
