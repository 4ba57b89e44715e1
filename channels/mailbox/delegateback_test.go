package mailbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// A worker that delegates a task straight back to its lead, while it
// works on the lead's task, sends a new task into a cycle: it is refused
// as a loop on the worker's side, whatever reply_to it names, and a task
// written that way by hand (trace ["lead", ...], a reply_to) is refused
// by the lead. A genuine reply (the task's update) still travels back.
func TestDelegatingBackIsACycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	lead := e.startAgent(t, "lead")
	worker := e.startAgent(t, "worker")

	_, err := lead.Post(context.Background(), route.Request{To: "worker", Type: envelope.TypeTask, Text: "sort 3 1 2"})
	require.NoError(t, err)
	in := worker.take(t)
	mt := metaOf(t, in)
	require.Equal(t, envelope.TypeTask, mt.Type)

	for _, req := range []route.Request{
		{To: "lead", Type: envelope.TypeTask, Text: "what order?", Parent: mt},
		{To: "lead", Type: envelope.TypeTask, Text: "what order?", Parent: mt, ReplyTo: mt.MessageID},
	} {
		_, err = worker.Post(context.Background(), req)
		assert.ErrorIs(t, err, route.ErrLoop, "a new task back to the lead, reply_to %q", req.ReplyTo)
	}

	// Written by hand (or by an older sender): trace ["lead", "worker"]
	// and a reply_to that names the lead's task.
	back := task("worker", "lead", "task_back", "what order?")
	back.Trace, back.ReplyTo = []string{"lead", "worker"}, mt.MessageID
	e.deliver(t, back)
	refused := e.waitEvent(t, "refused", back.ID)
	assert.Contains(t, refused.Reason, "loop: lead already in trace")

	// The worker's answer is a reply and goes back.
	_, err = worker.FinishTask(context.Background(), mt.Task.ID, envelope.StateCompleted, "1 2 3", "", nil)
	require.NoError(t, err)
	in.Done()
	for {
		up := metaOf(t, lead.consume(t))
		if up.Task.State == envelope.StateAccepted {
			continue
		}
		assert.Equal(t, envelope.StateCompleted, up.Task.State)
		break
	}
}
