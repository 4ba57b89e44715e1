package mailbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// corruptSuffix names the copy of a state record set aside because it
// did not decode: <key>-corrupt beside it (on the folder store
// <agent>/state/<key>-corrupt.json).
const corruptSuffix = "-corrupt"

// loadState reads one of the agent's state records with load. A record
// that does not decode (store.ErrCorruptState: edited by hand, or written
// by another program) must not keep the agent from receiving: it is set
// aside as <key>-corrupt, the agent starts with the record empty, and a
// warning says what is lost and where the copy is. Other errors (the store
// cannot be read) are returned.
func loadState[T any](ctx context.Context, c *Channel, key string,
	load func(context.Context, store.StateStore, string) (T, error)) (T, error) {
	v, err := load(ctx, c.backend, c.cfg.AgentID)
	if !errors.Is(err, store.ErrCorruptState) {
		return v, err
	}
	data, lerr := c.backend.LoadState(ctx, c.cfg.AgentID, key)
	if lerr == nil {
		lerr = c.backend.SaveState(ctx, c.cfg.AgentID, key+corruptSuffix, data)
	}
	if lerr == nil {
		lerr = c.backend.SaveState(ctx, c.cfg.AgentID, key, nil)
	}
	if lerr != nil {
		return v, fmt.Errorf("%w (setting it aside failed: %w)", err, lerr)
	}
	c.Logger().Warn("state record corrupt: set aside, starting without it", "agent", c.cfg.AgentID,
		"key", key, "copy", key+corruptSuffix, "err", err)
	return load(ctx, c.backend, c.cfg.AgentID)
}
