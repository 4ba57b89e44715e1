package driver

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// CardLeaver is a Registry whose card updates can outlast the caller's
// wait: the folder store queues an update that it cannot write into the
// registry at once, and whoever writes the registry next merges it. An
// agent that stops says its last word (offline) through it, so that a
// registry too busy for the stop's deadline (a thousand agents stopped
// at once) neither fails the stop nor loses the word.
type CardLeaver interface {
	// LeaveCard applies update to agentID's card as UpdateCard does, and
	// waits until the new card is in the registry or ctx ends. When ctx
	// ends first the update stays queued, to be merged by the registry's
	// next writer (an agent's start, update or heartbeat), and LeaveCard
	// returns with visible false and no error. It fails with nothing
	// queued when the update could not be queued (ctx ended before it,
	// or the store could not write it), and with the update still queued
	// when the store could not merge it itself.
	LeaveCard(ctx context.Context, agentID string, update func(*envelope.Card)) (visible bool, err error)
}
