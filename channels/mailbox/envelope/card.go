package envelope

import (
	"slices"
	"time"
)

// EffectiveStatus is the card's status as others must see it at now: offline
// once the last heartbeat is older than offlineAfter, whatever the card
// says (a crashed agent cannot mark itself offline), or further in the
// future than that (see HeartbeatFresh), otherwise the card's own status,
// with busy and idle following current_tasks.
func (c *Card) EffectiveStatus(now time.Time, offlineAfter time.Duration) Status {
	if c.Status == StatusOffline || !HeartbeatFresh(c.LastHeartbeat.Time, now, offlineAfter) {
		return StatusOffline
	}
	if len(c.CurrentTasks) > 0 {
		return StatusBusy
	}
	return StatusIdle
}

// MaxHeartbeatAhead is how far ahead of a reader's clock a heartbeat may
// be and still be trusted: the clocks of machines that share a mailbox
// differ by seconds, not minutes.
const MaxHeartbeatAhead = 5 * time.Minute

// HeartbeatFresh reports whether a heartbeat at hb shows its agent alive at
// now: it is no older than offlineAfter, and no further ahead of now than
// MaxHeartbeatAhead. A heartbeat from further in the future (a card
// written by hand, a machine whose clock is far off) is distrusted: taken
// as written, a last_heartbeat in 2099 would keep a dead agent online, and
// picked for work, until then.
func HeartbeatFresh(hb, now time.Time, offlineAfter time.Duration) bool {
	if hb.IsZero() {
		return false
	}
	age := now.Sub(hb)
	return age <= offlineAfter && age >= -MaxHeartbeatAhead
}

// HasCapability reports whether the card lists capability cap.
func (c *Card) HasCapability(capability string) bool {
	return slices.Contains(c.Capabilities, capability)
}

// HasRole reports whether the card lists role.
func (c *Card) HasRole(role string) bool { return slices.Contains(c.Roles, role) }

// FreeSlots is how many more tasks the agent can accept now.
func (c *Card) FreeSlots() int {
	return max(0, c.MaxConcurrentTasks-len(c.CurrentTasks))
}
