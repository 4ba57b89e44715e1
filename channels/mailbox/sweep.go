package mailbox

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// sweepTask moves the handled messages of a task that ended out of the
// way of active routing, into the task's archive, when the store can.
// A failure is logged: the messages stay where they are.
func (c *Channel) sweepTask(ctx context.Context, taskID string) {
	sw, ok := c.inbox.(store.TaskSweeper)
	if !ok || taskID == "" {
		return
	}
	n, err := sw.SweepTask(context.WithoutCancel(ctx), taskID)
	if errors.Is(err, store.ErrTurnedOff) {
		return // the store keeps no archive: nothing to move
	}
	if err != nil {
		c.Logger().Warn("task messages not archived", "task", taskID, "err", err)
		return
	}
	if n > 0 {
		c.Logger().Debug("task messages archived", "task", taskID, "messages", n)
	}
}

// pruneLoop applies the retention bounds to this agent's handled and
// archived messages at start and then every pruneInterval.
func (c *Channel) pruneLoop(ctx context.Context) {
	p, ok := c.inbox.(store.Pruner)
	if !ok {
		return
	}
	r := c.cfg.Retention()
	every := seconds(c.cfg.PruneInterval)
	for {
		if rep, err := p.Prune(ctx, r); err != nil && ctx.Err() == nil {
			c.Logger().Warn("retention not applied", "err", err)
		} else if rep.Files > 0 {
			c.Logger().Info("old messages removed by retention", "files", rep.Files, "bytes", rep.Bytes)
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
