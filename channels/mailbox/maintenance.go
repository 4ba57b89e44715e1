package mailbox

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
)

// pruneLoop applies the retention bounds to this agent's handled and
// archived messages, and removes the approvals no agent waits for any
// more, at start and then every pruneInterval.
func (c *Channel) pruneLoop(ctx context.Context, t clock.Ticker) {
	defer t.Stop()
	for {
		c.pruneMessages(ctx)
		c.pruneApprovals(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
	}
}

// pruneMessages applies the retention bounds, when the inbox can.
func (c *Channel) pruneMessages(ctx context.Context) {
	rep, err := c.inbox.Prune(ctx, c.cfg.Retention())
	if errors.Is(err, store.ErrNotSupported) {
		return
	}
	if err != nil && ctx.Err() == nil {
		c.Logger().Warn("retention not applied", "err", err)
	} else if rep.Files > 0 {
		c.Logger().Info("old messages removed by retention", "files", rep.Files, "bytes", rep.Bytes)
	}
}
