package driver_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var cardNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestFinishCardFillsDefaults(t *testing.T) {
	raw, card, err := driver.FinishCard(envelope.Card{AgentID: "someone-else"}, "coder", cardNow)
	require.NoError(t, err)
	assert.Equal(t, "coder", card.AgentID, "the key names the agent")
	assert.Equal(t, []string{}, card.Capabilities)
	assert.Equal(t, []string{}, card.AllowFrom)
	assert.Equal(t, []string{}, card.CurrentTasks)
	assert.Equal(t, envelope.StatusIdle, card.Status)
	assert.True(t, card.RegisteredAt.Equal(cardNow), "registered_at is now: %v", card.RegisteredAt)
	assert.True(t, card.LastHeartbeat.Equal(cardNow), "last_heartbeat is registered_at: %v", card.LastHeartbeat)

	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &fields))
	for _, key := range []string{"capabilities", "allow_from", "current_tasks"} {
		assert.JSONEq(t, "[]", string(fields[key]), "%s is a list, never null", key)
	}
	assert.NotContains(t, string(raw), "\n", "one line")
}

func TestFinishCardStatus(t *testing.T) {
	tests := []struct {
		name   string
		status envelope.Status
		tasks  []string
		want   envelope.Status
	}{
		{"empty without tasks is idle", "", nil, envelope.StatusIdle},
		{"empty with tasks is busy", "", []string{"t1"}, envelope.StatusBusy},
		{"offline stays offline", envelope.StatusOffline, []string{"t1"}, envelope.StatusOffline},
		{"idle is kept as set", envelope.StatusIdle, []string{"t1"}, envelope.StatusIdle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, card, err := driver.FinishCard(envelope.Card{Status: tt.status, CurrentTasks: tt.tasks}, "coder", cardNow)
			require.NoError(t, err)
			assert.Equal(t, tt.want, card.Status)
		})
	}
	_, _, err := driver.FinishCard(envelope.Card{Status: "asleep"}, "coder", cardNow)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `status "asleep"`)
}

func TestFinishCardKeepsTimesAndFields(t *testing.T) {
	reg := envelope.NewTime(cardNow.Add(-time.Hour))
	beat := envelope.NewTime(cardNow.Add(-time.Minute))
	in := envelope.Card{Description: "sorts <lists> & counts", Capabilities: []string{"sort"},
		MaxConcurrentTasks: 2, RegisteredAt: reg, LastHeartbeat: beat, Roles: []string{"worker"}}
	raw, card, err := driver.FinishCard(in, "coder", cardNow)
	require.NoError(t, err)
	assert.True(t, card.RegisteredAt.Equal(reg.Time))
	assert.True(t, card.LastHeartbeat.Equal(beat.Time))
	assert.Equal(t, []string{"sort"}, card.Capabilities)
	assert.Equal(t, []string{"worker"}, card.Roles)
	assert.Equal(t, 2, card.MaxConcurrentTasks)
	assert.Contains(t, string(raw), `"sorts <lists> & counts"`, "written as nanobot writes it, not HTML-escaped")

	var decoded envelope.Card
	require.NoError(t, json.Unmarshal(raw, &decoded))
	assert.Equal(t, decoded, card, "the card returned is the card as a reader decodes it")
}
