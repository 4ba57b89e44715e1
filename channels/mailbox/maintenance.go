package mailbox

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
)

// pruneLoop applies the retention bounds to this agent's handled and
// archived messages at start and then every pruneInterval.
func (c *Channel) pruneLoop(ctx context.Context, t clock.Ticker) {
	defer t.Stop()
	p, ok := c.inbox.(store.Pruner)
	if !ok {
		return
	}
	r := c.cfg.Retention()
	for {
		if rep, err := p.Prune(ctx, r); err != nil && ctx.Err() == nil {
			c.Logger().Warn("retention not applied", "err", err)
		} else if rep.Files > 0 {
			c.Logger().Info("old messages removed by retention", "files", rep.Files, "bytes", rep.Bytes)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C():
		}
	}
}
