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
	return o.endTask(ctx, taskID, cmp.Or(strings.TrimSpace(reason), "canceled by the operator"), envelope.StateCanceled, "canceled")
}

// endTask ends a task that has not ended as Cancel does, telling the
// worker canceled and the delegator toDelegator (canceled, or failed),
// both with reason; verb says what was done in the audit log.
func (o *Operator) endTask(ctx context.Context, taskID, reason string, toDelegator envelope.TaskState, verb string) (Canceled, error) {
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
	out := Canceled{TaskID: taskID, From: task.From, To: task.To}
	for i, dir := range [][2]string{{task.From, task.To}, {task.To, task.From}} {
		state := envelope.StateCanceled
		if i == 1 {
			state = toDelegator
		}
		req := route.Request{To: dir[1], Type: envelope.TypeTaskUpdate, TaskID: taskID,
			TaskState: state, Reason: reason, ReplyTo: task.ID,
			ThreadID: cmp.Or(task.ThreadID, task.ID)}
		msg, err := route.Compose(dir[0], req, route.ComposeOptions{DefaultTTL: o.cfg.DefaultTTL, Now: o.cfg.Now()})
		if err != nil {
			return out, err
		}
		msg.Callback = task.Callback
		msg.Metadata = map[string]any{MetaSentBy: o.cfg.Actor}
		if err := o.sign(ctx, msg); err != nil {
			return out, err
		}
		// the cancel joins the task's trace
		tctx := tracing.WithParent(ctx, task.Traceparent, task.Tracestate)
		if err := mailtrace.Deliver(tctx, nil, o.cfg.Store, msg); err != nil {
			return out, err
		}
		out.Updates = append(out.Updates, msg.ID)
		o.record(ctx, store.EventOperator, verb+" task "+taskID+": told "+dir[1]+" in "+dir[0]+"'s name",
			store.Event{MessageID: msg.ID, ThreadID: msg.ThreadID, TaskID: taskID})
	}
	return out, nil
}

// sign signs msg, which the actor sends: with the actor's Key when msg
// is in the actor's own name; else with the key of the agent its from
// names when it can be read here (the folder), else with Key (msg's
// sent_by names the actor); else it stays unsigned, and a receiver that
// pinned that agent's key refuses it.
func (o *Operator) sign(ctx context.Context, msg *envelope.Message) error {
	if o.cfg.Key != nil && msg.From == o.cfg.Actor {
		return envelope.Sign(msg, o.cfg.Key)
	}
	signed, _, err := keys.SignAs(ctx, o.cfg.Store, msg, keys.Source{})
	if err != nil || signed || o.cfg.Key == nil {
		return err
	}
	return envelope.Sign(msg, o.cfg.Key)
}
