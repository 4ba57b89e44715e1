package envelope

import (
	"slices"
	"time"
)

// EffectiveStatus is the card's status as others must see it at now: offline
// once the last heartbeat is older than offlineAfter, whatever the card
// says (a crashed agent cannot mark itself offline), otherwise the card's
// own status, with busy and idle following current_tasks; an agent that
// drains stays draining, whatever tasks it has left.
func (c *Card) EffectiveStatus(now time.Time, offlineAfter time.Duration) Status {
	if c.Status == StatusOffline || c.LastHeartbeat.IsZero() ||
		now.Sub(c.LastHeartbeat.Time) > offlineAfter {
		return StatusOffline
	}
	if c.Status == StatusDraining {
		return StatusDraining
	}
	if len(c.CurrentTasks) > 0 {
		return StatusBusy
	}
	return StatusIdle
}

// HasCapability reports whether the card lists capability cap.
func (c *Card) HasCapability(capability string) bool {
	return slices.Contains(c.Capabilities, capability)
}

// HasRole reports whether the card lists role.
func (c *Card) HasRole(role string) bool { return slices.Contains(c.Roles, role) }

// FreeSlots is how many more tasks the agent can accept now: none while
// it drains.
func (c *Card) FreeSlots() int {
	if c.Status == StatusDraining {
		return 0
	}
	return max(0, c.MaxConcurrentTasks-len(c.CurrentTasks))
}

// TakesWork reports whether the agent, online, accepts new tasks: it is
// not draining.
func (c *Card) TakesWork() bool { return c.Status != StatusDraining }
