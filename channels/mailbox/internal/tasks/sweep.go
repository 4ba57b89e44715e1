package tasks

import (
	"context"
	"errors"
	"log/slog"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Sweeper is an inbox that archives a task's messages: a *store.Inbox.
type Sweeper interface {
	SweepTask(ctx context.Context, taskID string) (int, error)
}

// Sweep moves the handled messages of a task that ended out of the way of
// active routing, into the task's archive, when the inbox can. A failure
// is logged: the messages stay where they are.
func Sweep(ctx context.Context, in Sweeper, taskID string, log *slog.Logger) {
	if taskID == "" {
		return
	}
	n, err := in.SweepTask(context.WithoutCancel(ctx), taskID)
	if errors.Is(err, store.ErrTurnedOff) || errors.Is(err, store.ErrNotSupported) {
		return // the store keeps no archive: nothing to move
	}
	if err != nil {
		log.Warn("task messages not archived", "task", taskID, "err", err)
		return
	}
	if n > 0 {
		log.Debug("task messages archived", "task", taskID, "messages", n)
	}
}
