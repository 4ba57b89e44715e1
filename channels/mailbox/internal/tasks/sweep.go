package tasks

import (
	"context"
	"errors"
	"log/slog"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Sweep moves the handled messages of a task that ended out of the way of
// active routing, into the task's archive, when the inbox can
// (store.TaskSweeper). A failure is logged: the messages stay where they
// are.
func Sweep(ctx context.Context, in store.Inbox, taskID string, log *slog.Logger) {
	sw, ok := in.(store.TaskSweeper)
	if !ok || taskID == "" {
		return
	}
	n, err := sw.SweepTask(context.WithoutCancel(ctx), taskID)
	if errors.Is(err, store.ErrTurnedOff) {
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
