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

	// the worker's last word, sent by another of its processes (so its
	// channel finds it in the store): the 3rd bounce; the lead's answer
	// to it is the 4th
	mine := storedFrom(t, e, "worker", "lead", "t1", envelope.Exchange{Bounces: 3}, false)
	bounce := msg("lead", "worker", envelope.TypeMessage, "and again?")
	bounce.ReplyTo, bounce.ThreadID, bounce.HopCount = mine.ID, "th1", 4
	bounce.SetExchange(envelope.Exchange{Bounces: 4}) // as the lead's channel counts it
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
// is no task to fail. A reply that settles a question is handed over, and
// so is one that answers nothing of the receiver's, whatever counts the
// sender claims: the receiver counts from its own messages.
func TestStalemateWithoutATaskIsSetAside(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.startAgent(t, "a")
	mine := storedFrom(t, e, "a", "b", "", envelope.Exchange{Bounces: 8, AskedBack: 3}, true)
	bounce := msg("b", "a", envelope.TypeMessage, "you first?")
	bounce.ReplyTo, bounce.ThreadID, bounce.ExpectsReply = mine.ID, "th1", true
	bounce.SetExchange(envelope.Exchange{Bounces: 9, AskedBack: 4})
	e.deliver(t, bounce)
	refused := e.waitEvent(t, "refused", bounce.ID)
	assert.Equal(t, "stalemate: a and b answered each other's requests with new requests 4 times in a row (2 rounds) in thread th1: "+
		"the replies owed did not shrink; the 4th, b's reply "+bounce.ID+" to a, was set aside", refused.Reason)
	e.waitEvent(t, store.EventEscalation, bounce.ID)

	// a question answered: handed over as usual
	mine = storedFrom(t, e, "a", "b", "", envelope.Exchange{Bounces: 8, AskedBack: 3}, true)
	ok := msg("b", "a", envelope.TypeMessage, "fine")
	ok.ReplyTo, ok.ThreadID = mine.ID, "th1"
	ok.SetExchange(envelope.Exchange{Bounces: 99, AskedBack: 99}) // b's word counts for nothing
	e.deliver(t, ok)
	e.waitEvent(t, store.EventDelivered, ok.ID)

	// a reply to nothing a sent, whatever it claims: the start of a chain
	forged := msg("b", "a", envelope.TypeMessage, "stalemate!")
	forged.ReplyTo, forged.ThreadID = "m0", "th1"
	forged.SetExchange(envelope.Exchange{Bounces: 99, AskedBack: 99})
	e.deliver(t, forged)
	e.waitEvent(t, store.EventDelivered, forged.ID)
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

	mine := storedFrom(t, e, "lead", "worker", "t1", envelope.Exchange{Bounces: 3}, false)
	bounce := msg("worker", "lead", envelope.TypeMessage, "and again?")
	bounce.ReplyTo, bounce.TaskID, bounce.ThreadID = mine.ID, "other-task", "th1" // the lead's word names the task
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

// storedFrom delivers a reply from → to of task (none: "") carrying
// counts, as another process of agent from sent it (so that from's
// channel finds it in the store, not in its memory), and returns it.
func storedFrom(t *testing.T, e *env, from, to, task string, counts envelope.Exchange, request bool) *envelope.Message {
	t.Helper()
	m := msg(from, to, envelope.TypeMessage, "as I said")
	m.ReplyTo, m.ThreadID, m.TaskID, m.ExpectsReply = "m0", "th1", task, request
	m.SetExchange(counts)
	e.deliver(t, m)
	return m
}

// A stalemate found by the worker fails the task with "stalemate: …",
// and a delegator with escalation levels climbs them with the trigger
// stalemate instead of failing its own work: the level (an agent here)
// is asked with what was asked and why it stuck, and the escalation
// waits on the store.
func TestStalemateClimbsTheDelegatorsEscalation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	lead := e.startAgent(t, "lead", func(c *mailbox.Config) { c.Escalation.Levels = []string{"boss"} })
	worker := e.startAgent(t, "worker")
	boss := e.startAgent(t, "boss")

	_, err := lead.Post(context.Background(), route.Request{To: "worker", Type: envelope.TypeTask, TaskID: "t1", Text: "sort 3 1 2"})
	require.NoError(t, err)
	in := worker.take(t)
	mine := storedFrom(t, e, "worker", "lead", "t1", envelope.Exchange{Bounces: 3}, false)
	bounce := msg("lead", "worker", envelope.TypeMessage, "and again?")
	bounce.ReplyTo, bounce.ThreadID, bounce.HopCount = mine.ID, "th1", 4
	bounce.SetExchange(envelope.Exchange{Bounces: 4})
	e.deliver(t, bounce)
	refused := e.waitEvent(t, "refused", bounce.ID)
	require.True(t, strings.HasPrefix(refused.Reason, "stalemate: "), refused.Reason)
	in.Done()

	asked := boss.consume(t)
	assert.Contains(t, asked.Content, "sort 3 1 2", "the level reads what was asked")
	assert.Contains(t, asked.Content, "stalemate", "and why it stuck")
	list, err := e.st.Escalations().List(context.Background())
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "stalemate", list[0].Trigger)
	assert.Equal(t, "t1", list[0].TaskID)
	assert.Equal(t, "boss", list[0].At())
}
