package mailbox

import "sync"

// canceledTasks remembers the last tasks canceled while this process
// held them, so that an approval their turn asks for after the cancel
// (the turn was already under way) is denied at once (Channel.Canceled).
// It holds at most size ids, forgetting the oldest first.
type canceledTasks struct {
	mu    sync.Mutex
	size  int
	ids   map[string]bool
	order []string // oldest first
}

func newCanceledTasks(size int) *canceledTasks {
	return &canceledTasks{size: size, ids: map[string]bool{}}
}

func (c *canceledTasks) add(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids[id] {
		return
	}
	if len(c.order) == c.size {
		delete(c.ids, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, id)
	c.ids[id] = true
}

func (c *canceledTasks) has(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ids[id]
}

// Canceled reports whether task taskID, which this agent was given, was
// canceled by its delegator while this process held it: work on it is
// dropped, and an approval asked for it is denied (ByCancel).
func (c *Channel) Canceled(taskID string) bool {
	return taskID != "" && c.canceled.has(taskID)
}
