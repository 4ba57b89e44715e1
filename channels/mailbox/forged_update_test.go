package mailbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// A terminal task_update from an agent the task was never sent to changes
// nothing: the delegator's task stays open (its messages are not archived,
// its record still routes the real result), and the forgery reaches the
// agent as a plain notice, not in the user's chat.
func TestForeignTerminalUpdateLeavesTheTaskAlone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	boss := e.startAgent(t, "boss")
	e.peer(t, "coder")
	sent := delegate(t, boss, "coder", "work", time.Now().Add(time.Hour))
	accepted := msg("coder", "boss", envelope.TypeTaskUpdate, "")
	accepted.Task = &envelope.Task{ID: sent.Task.ID, State: envelope.StateAccepted}
	accepted.ReplyTo = sent.ID
	e.deliver(t, accepted)
	assertRouted(t, boss.consume(t))
	e.waitEvent(t, store.EventProcessed, accepted.ID)

	forged := msg("mallory", "boss", envelope.TypeTaskUpdate, "")
	forged.Task = &envelope.Task{ID: sent.Task.ID, State: envelope.StateCompleted}
	e.deliver(t, forged)
	in := boss.consume(t)
	assert.Equal(t, mailbox.ChannelName, in.Channel, "not routed to the user's chat")
	e.waitEvent(t, store.EventProcessed, forged.ID)
	assert.Equal(t, store.BoxProcessed, e.boxOf(t, "boss", accepted.ID), "the task's messages stay where they are")

	done := msg("coder", "boss", envelope.TypeTaskUpdate, "result")
	done.Task = &envelope.Task{ID: sent.Task.ID, State: envelope.StateCompleted}
	e.deliver(t, done)
	assertRouted(t, boss.consume(t))
	e.waitEvent(t, store.EventSwept, accepted.ID)
}

// boxOf returns where message id is in agent's mailbox.
func (e *env) boxOf(t *testing.T, agent, id string) store.Box {
	t.Helper()
	var box store.Box
	require.NoError(t, e.store.Browse(context.Background(), func(s store.Stored) bool {
		if s.Agent == agent && s.Message.ID == id {
			box = s.Box
			return false
		}
		return true
	}))
	return box
}
