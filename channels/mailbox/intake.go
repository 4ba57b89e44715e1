package mailbox

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels"
)

var _ channels.ReceiveStopper = (*Channel)(nil)

// intake is the receive loop's own stop, so that StopReceiving can end it
// while the rest of the channel runs on.
type intake struct {
	stop context.CancelFunc
	done chan struct{} // closed when the receive loop has returned
}

// startReceiving starts the receive loop under ctx. c.mu is held.
func (c *Channel) startReceiving(ctx context.Context) {
	ictx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	c.intake = intake{stop: stop, done: done}
	c.wg.Go(func() {
		defer close(done)
		c.receiveLoop(ctx, ictx)
	})
}

// StopReceiving ends the intake of messages (channels.ReceiveStopper): the
// receive loop finishes the message in hand (published, then acknowledged
// or held as a task in progress) and takes no other, so what arrives from
// now on stays pending in the inbox for the next start. Sending, task
// updates, heartbeats and the acknowledgement of the tasks and requests in
// progress go on until Stop. It returns once the loop has ended, or with
// ctx's error.
func (c *Channel) StopReceiving(ctx context.Context) error {
	c.mu.Lock()
	if !c.running {
		c.mu.Unlock()
		return nil
	}
	in := c.intake
	c.mu.Unlock()
	in.stop()
	select {
	case <-in.done:
		c.Logger().Info("mailbox stopped receiving", "agent", c.cfg.AgentID)
		return nil
	case <-ctx.Done():
		return fmt.Errorf("stop receiving: the message in hand was not handled in time: %w", ctx.Err())
	}
}
