package envelope_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func TestCardEffectiveStatus(t *testing.T) {
	now := time.Date(2026, 4, 26, 10, 5, 0, 0, time.UTC)
	const offlineAfter = 30 * time.Second
	ago := func(d time.Duration) envelope.Time { return envelope.NewTime(now.Add(-d)) }
	tests := []struct {
		name string
		card envelope.Card
		want envelope.Status
	}{
		{"idle, fresh heartbeat", envelope.Card{Status: envelope.StatusIdle, LastHeartbeat: ago(time.Second)}, envelope.StatusIdle},
		{"idle card with current tasks is busy", envelope.Card{
			Status: envelope.StatusIdle, CurrentTasks: []string{"t1"}, LastHeartbeat: ago(time.Second),
		}, envelope.StatusBusy},
		{"busy card without tasks is idle", envelope.Card{Status: envelope.StatusBusy, LastHeartbeat: ago(0)}, envelope.StatusIdle},
		{"crashed agent: stale heartbeat, card still idle", envelope.Card{
			Status: envelope.StatusIdle, LastHeartbeat: ago(offlineAfter + time.Second),
		}, envelope.StatusOffline},
		{"stale and busy", envelope.Card{
			Status: envelope.StatusBusy, CurrentTasks: []string{"t1"}, LastHeartbeat: ago(time.Hour),
		}, envelope.StatusOffline},
		{"exactly offlineAfter old is still online", envelope.Card{Status: envelope.StatusIdle, LastHeartbeat: ago(offlineAfter)}, envelope.StatusIdle},
		{"explicit offline with a fresh heartbeat", envelope.Card{Status: envelope.StatusOffline, LastHeartbeat: ago(0)}, envelope.StatusOffline},
		{"zero heartbeat", envelope.Card{Status: envelope.StatusIdle}, envelope.StatusOffline},
		{"heartbeat from a clock ahead of ours", envelope.Card{Status: envelope.StatusIdle, LastHeartbeat: ago(-time.Minute)}, envelope.StatusIdle},
		{"heartbeat just within MaxHeartbeatAhead", envelope.Card{Status: envelope.StatusIdle, LastHeartbeat: ago(-envelope.MaxHeartbeatAhead)}, envelope.StatusIdle},
		{"heartbeat further ahead is distrusted", envelope.Card{Status: envelope.StatusIdle, LastHeartbeat: ago(-envelope.MaxHeartbeatAhead - time.Second)}, envelope.StatusOffline},
		{"heartbeat in 2099", envelope.Card{Status: envelope.StatusIdle,
			LastHeartbeat: envelope.NewTime(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC))}, envelope.StatusOffline},
		{"empty status, fresh", envelope.Card{LastHeartbeat: ago(0)}, envelope.StatusIdle},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.card.EffectiveStatus(now, offlineAfter))
		})
	}
}

func TestStatusValid(t *testing.T) {
	for _, s := range []envelope.Status{envelope.StatusIdle, envelope.StatusBusy, envelope.StatusOffline} {
		assert.True(t, s.Valid(), s)
	}
	for _, s := range []envelope.Status{"", "online", "Idle", "working"} {
		assert.False(t, s.Valid(), s)
	}
}

func TestCardHelpers(t *testing.T) {
	c := envelope.Card{
		Capabilities: []string{"code_write", "review"}, Roles: []string{"reviewer"},
		MaxConcurrentTasks: 3, CurrentTasks: []string{"a", "b"},
	}
	assert.True(t, c.HasCapability("review"))
	assert.False(t, c.HasCapability("web_search"))
	assert.True(t, c.HasRole("reviewer"))
	assert.False(t, c.HasRole("planner"))
	assert.Equal(t, 1, c.FreeSlots())
	c.CurrentTasks = []string{"a", "b", "c", "d"}
	assert.Equal(t, 0, c.FreeSlots(), "never negative")
}
