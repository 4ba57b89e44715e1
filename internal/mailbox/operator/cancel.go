package operator

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mailbox/mailtrace"
	"github.com/switchboard-dev/switchboard/tracing"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// Canceled says what Cancel did.
type Canceled struct {
	TaskID string
	// From delegated the task to To.
	From, To string
	// Updates are the ids of the two task_updates sent: to the worker,
	// then to the delegator.
	Updates []string
}

// Cancel ends a task that has not ended: the worker gets a task_update
// "canceled" in its delegator's name (a worker takes cancels from its
// delegator only) and the delegator one in its worker's name (so its
// record of the task ends and the chat it began in hears of it). Both
// carry the task's callback and are marked sent_by operator, and the
// audit log says the operator did it. reason "" says "canceled by the
// operator".
func (o *Operator) Cancel(ctx context.Context, taskID, reason string) (Canceled, error) {
	if taskID == "" {
		return Canceled{}, fmt.Errorf("%w: cancel needs a task id", ErrUsage)
	}
	if !o.cfg.Store.Has(store.CanBrowse) {
		return Canceled{}, lacks("cancel", "cannot list stored messages")
	}
	var task *envelope.Message
	var ended envelope.TaskState
	err := o.cfg.Store.Browse(ctx, func(s store.Stored) bool {
		m := s.Message
		switch {
		case m.Task == nil || m.Task.ID != taskID:
		case m.Type == envelope.TypeTask && (task == nil || m.Timestamp.Before(task.Timestamp.Time)):
			task = m
		case m.Type == envelope.TypeTaskUpdate && m.Task.State.Terminal():
			ended = m.Task.State
		}
		return true
	})
	if err != nil {
		return Canceled{}, err
	}
	switch {
	case task == nil:
		return Canceled{}, fmt.Errorf("%w: cancel: no task %s", ErrUsage, taskID)
	case ended != "":
		return Canceled{}, fmt.Errorf("cancel %s: the task has ended already (%s)", taskID, ended)
	}
	reason = cmp.Or(strings.TrimSpace(reason), "canceled by the operator")
	out := Canceled{TaskID: taskID, From: task.From, To: task.To}
	for _, dir := range [][2]string{{task.From, task.To}, {task.To, task.From}} {
		req := route.Request{To: dir[1], Type: envelope.TypeTaskUpdate, TaskID: taskID,
			TaskState: envelope.StateCanceled, Reason: reason, ReplyTo: task.ID,
			ThreadID: cmp.Or(task.ThreadID, task.ID)}
		msg, err := route.Compose(dir[0], req, route.ComposeOptions{DefaultTTL: o.cfg.DefaultTTL, Now: o.cfg.Now()})
		if err != nil {
			return out, err
		}
		msg.Callback = task.Callback
		msg.Metadata = map[string]any{MetaSentBy: Actor}
		// Signed with dir[0]'s key when it can be read here (the folder);
		// else unsigned, and refused by a receiver that pinned that key.
		if _, _, err := keys.SignAs(ctx, o.cfg.Store, msg, keys.Source{}); err != nil {
			return out, err
		}
		// the cancel joins the task's trace
		tctx := tracing.WithParent(ctx, task.Traceparent, task.Tracestate)
		if err := mailtrace.Deliver(tctx, nil, o.cfg.Store, msg); err != nil {
			return out, err
		}
		out.Updates = append(out.Updates, msg.ID)
		o.record(ctx, store.EventOperator, "canceled task "+taskID+": told "+dir[1]+" in "+dir[0]+"'s name",
			store.Event{MessageID: msg.ID, ThreadID: msg.ThreadID, TaskID: taskID})
	}
	return out, nil
}
