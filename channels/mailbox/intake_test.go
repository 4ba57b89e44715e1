package mailbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// pendingIDs lists the ids of the messages waiting in agent's inbox.
func (e *env) pendingIDs(t *testing.T, agent string) []string {
	t.Helper()
	var ids []string
	require.NoError(t, e.store.Pending(context.Background(), agent, func(_ string, m *envelope.Message, err error) bool {
		require.NoError(t, err)
		ids = append(ids, m.ID)
		return true
	}))
	return ids
}

// After StopReceiving, what arrives stays in the inbox for the next start,
// while the channel still sends and the task in progress still ends (and
// its request is acknowledged then).
func TestStopReceivingLeavesNewMessagesInTheInbox(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	boss := e.peer(t, "boss")
	req := task("boss", "coder", "t1", "write sort")
	e.deliver(t, req)
	boss.expectUpdate(t, "t1", envelope.StateAccepted)
	assert.Equal(t, "write sort", a.consume(t).Content)
	before := msg("boss", "coder", envelope.TypeMessage, "before")
	e.deliver(t, before)
	assert.Equal(t, "before", a.consume(t).Content)
	e.waitEvent(t, store.EventProcessed, before.ID)

	require.NoError(t, a.StopReceiving(context.Background()))
	require.NoError(t, a.StopReceiving(context.Background()), "twice is fine")
	after := msg("boss", "coder", envelope.TypeMessage, "after")
	e.deliver(t, after)
	late := task("boss", "coder", "t2", "count words")
	e.deliver(t, late)
	assert.Equal(t, []string{after.ID, late.ID}, e.pendingIDs(t, "coder"),
		"the receive loop has ended: nothing takes them")

	_, err := a.FinishTask(context.Background(), "t1", envelope.StateCompleted, "func sort() {}", "", nil)
	require.NoError(t, err)
	assert.Equal(t, "func sort() {}", boss.expectUpdate(t, "t1", envelope.StateCompleted).Text())
	e.waitEvent(t, store.EventProcessed, req.ID)
	require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: "mailbox", ChatID: "boss", Content: "bye"}))
	boss.expect(t, "a message sent after StopReceiving", func(m *envelope.Message) bool { return m.Text() == "bye" })

	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	require.NoError(t, a.Stop(ctx))
	assert.Equal(t, 0, a.bus.InboundDepth(), "nothing was published after StopReceiving")
	assert.Equal(t, []string{after.ID, late.ID}, e.pendingIDs(t, "coder"))

	again := e.startAgent(t, "coder")
	assert.Equal(t, "after", again.consume(t).Content, "the next start takes them")
	assert.Equal(t, "count words", again.consume(t).Content)
}

func TestStopReceivingBeforeStartOrAfterStop(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	require.NoError(t, a.Stop(ctx))
	require.NoError(t, a.StopReceiving(ctx), "a stopped channel has nothing to stop")
}
