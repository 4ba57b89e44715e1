package operator

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/stalemate"
)

// EndStalemate ends the stalemate s (package stalemate), whose reply the
// agent that found it sets aside: the task the exchange belongs to, when
// it has one that has not ended, fails as BreakDeadlock fails a subtask
// (its worker is told canceled, its delegator failed, both with the
// reason s.String(), "stalemate: a and b ..."), so that the delegator,
// or the chat the task began in, hears why. The stalemate is in the
// audit log as an escalation event, once, whether or not a task was
// failed; the error says why none was (no such task, ended already).
func (o *Operator) EndStalemate(ctx context.Context, s stalemate.Stuck) (Canceled, error) {
	reason := s.String()
	var out Canceled
	var err error
	if s.TaskID != "" {
		out, err = o.endTask(ctx, s.TaskID, reason, envelope.StateFailed, "failed (stalemate)")
	}
	o.record(ctx, store.EventEscalation, reason, store.Event{Agent: s.To, MessageID: s.MessageID,
		TaskID: s.TaskID, ThreadID: s.ThreadID})
	return out, err
}
