package mailbox_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// A reply that carries a stalemate on, received by the worker of the
// exchange's task, is set aside and the worker fails the task: the lead
// hears it failed with the reason; one escalation entry.
func TestStalemateFailsTheTaskOfTheExchange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	lead := e.startAgent(t, "lead")
	worker := e.startAgent(t, "worker")

	_, err := lead.Post(context.Background(), route.Request{To: "worker", Type: envelope.TypeTask, TaskID: "t1", Text: "sort 3 1 2"})
	require.NoError(t, err)
	in := worker.take(t)
	require.Equal(t, envelope.TypeTask, metaOf(t, in).Type)

	bounce := msg("lead", "worker", envelope.TypeMessage, "and again?")
	bounce.ReplyTo, bounce.TaskID, bounce.ThreadID, bounce.HopCount = "m0", "t1", "th1", 4
	bounce.SetExchange(envelope.Exchange{Bounces: 4})
	e.deliver(t, bounce)

	refused := e.waitEvent(t, "refused", bounce.ID)
	assert.True(t, strings.HasPrefix(refused.Reason, "stalemate: worker and lead bounced replies back and forth 4 times on task t1"), refused.Reason)
	esc := e.waitEvent(t, store.EventEscalation, bounce.ID)
	assert.Equal(t, refused.Reason, esc.Reason)
	assert.Equal(t, "t1", esc.TaskID)
	for {
		up := metaOf(t, lead.consume(t))
		if up.Type != envelope.TypeTaskUpdate || up.Task.State == envelope.StateAccepted {
			continue
		}
		assert.Equal(t, envelope.StateFailed, up.Task.State)
		assert.Equal(t, refused.Reason, up.Task.Reason)
		break
	}
	assert.True(t, worker.Canceled("t1"), "the worker's turn under way is dropped")
	in.Done()
	_, err = worker.FinishTask(context.Background(), "t1", envelope.StateCompleted, "1 2 3", "", nil)
	assert.ErrorIs(t, err, mailbox.ErrTaskNotActive, "it ended")
}

// A stalemate on a message of no task is set aside and recorded; there
// is no task to fail. A reply under the limits is handed over.
func TestStalemateWithoutATaskIsSetAside(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startAgent(t, "a")
	bounce := msg("b", "a", envelope.TypeMessage, "you first")
	bounce.ReplyTo, bounce.ThreadID = "m0", "th1"
	bounce.SetExchange(envelope.Exchange{Bounces: 9, AskedBack: 4})
	e.deliver(t, bounce)
	refused := e.waitEvent(t, "refused", bounce.ID)
	assert.Equal(t, "stalemate: a and b answered each other's requests with new requests 4 times in a row (2 rounds) in thread th1: "+
		"the replies owed did not shrink; the 4th, b's reply "+bounce.ID+" to a, was set aside", refused.Reason)
	e.waitEvent(t, store.EventEscalation, bounce.ID)

	// under the limit: handed over as usual
	ok := msg("b", "a", envelope.TypeMessage, "fine")
	ok.ReplyTo, ok.ThreadID = "m0", "th1"
	ok.SetExchange(envelope.Exchange{Bounces: 3, AskedBack: 3})
	e.deliver(t, ok)
	e.waitEvent(t, store.EventDelivered, ok.ID)
}

// A nanobot agent writes no exchange counts: its replies are counted on
// from the message of this agent they answer, so that small talk with it
// is a stalemate too, on this agent's side, at the same reply.
func TestStalemateWithAnAgentThatKeepsNoCounts(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.startAgent(t, "a")
	nb := e.nanobot(t, "nb")

	hello := msg("nb", "a", envelope.TypeMessage, "hello")
	e.deliver(t, hello)
	in := a.consume(t)
	for i := 0; ; i++ {
		// a answers what it was handed (as its model does with the reply tool)
		sent, err := a.Post(context.Background(), route.Request{To: "nb", Text: "pardon?", Parent: metaOf(t, in)})
		require.NoError(t, err)
		assert.Equal(t, envelope.Exchange{Bounces: 2*i + 1}, sent.Exchange())
		nb.expect(t, "a's answer", func(m *envelope.Message) bool { return m.ID == sent.ID })
		back := msg("nb", "a", envelope.TypeMessage, "what?") // nanobot's reply: no counts
		back.ReplyTo, back.ThreadID = sent.ID, sent.ThreadID
		e.deliver(t, back)
		if 2*i+2 == 4 {
			refused := e.waitEvent(t, "refused", back.ID)
			assert.True(t, strings.HasPrefix(refused.Reason, "stalemate: a and nb bounced replies back and forth 4 times in thread "), refused.Reason)
			return
		}
		in = a.consume(t)
		assert.Equal(t, envelope.Exchange{Bounces: 2*i + 2}, metaOf(t, in).Exchange, "inferred")
	}
}

// Received by the delegator of the exchange's task, the stalemate ends
// that task as the operator ends one: the worker is told canceled, the
// delegator failed, with the reason.
func TestStalemateAtTheDelegatorEndsTheTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	lead := e.startAgent(t, "lead")
	worker := e.startAgent(t, "worker")
	_, err := lead.Post(context.Background(), route.Request{To: "worker", Type: envelope.TypeTask, TaskID: "t1", Text: "sort 3 1 2"})
	require.NoError(t, err)
	in := worker.take(t)

	bounce := msg("worker", "lead", envelope.TypeMessage, "and again?")
	bounce.ReplyTo, bounce.TaskID, bounce.ThreadID = "m0", "t1", "th1"
	bounce.SetExchange(envelope.Exchange{Bounces: 4})
	e.deliver(t, bounce)
	refused := e.waitEvent(t, "refused", bounce.ID)
	assert.True(t, strings.HasPrefix(refused.Reason, "stalemate: lead and worker bounced"), refused.Reason)
	for {
		up := metaOf(t, lead.consume(t))
		if up.Type != envelope.TypeTaskUpdate || !up.Task.State.Terminal() {
			continue
		}
		assert.Equal(t, envelope.StateFailed, up.Task.State)
		assert.Equal(t, refused.Reason, up.Task.Reason)
		break
	}
	for {
		up := metaOf(t, worker.consume(t))
		if up.Type == envelope.TypeTaskUpdate {
			assert.Equal(t, envelope.StateCanceled, up.Task.State)
			assert.Equal(t, refused.Reason, up.Task.Reason)
			break
		}
	}
	in.Done()
	assert.Equal(t, refused.Reason, e.waitEvent(t, store.EventEscalation, bounce.ID).Reason)
}
