package mailbox_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// Every message the channel hands to the agent says in the bus's words
// what it asks of the agent (bus.Kind) and how the model is shown it
// (bus.Note), with its thread: the loop never reads the metadata.
func TestReceivedMessagesAreFramedForTheAgent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	boss := e.peer(t, "boss")

	req := task("boss", "coder", "t1", "write sort")
	req.ThreadID = "th-1"
	e.deliver(t, req)
	in := a.consume(t)
	assert.Equal(t, bus.KindTask, in.Kind)
	assert.Equal(t, &bus.Note{Type: "task", From: "boss", TaskID: "t1", Text: "write sort"}, in.Note)
	assert.Equal(t, "[mailbox task from boss] write sort", in.Note.String())
	assert.Equal(t, "th-1", in.Thread)
	assert.Equal(t, req.ID, in.ID)

	hello := msg("boss", "coder", envelope.TypeMessage, "hello")
	hello.Content.Parts = append(hello.Content.Parts, envelope.DataPart(map[string]any{"n": 1}))
	e.deliver(t, hello)
	in = a.consume(t)
	assert.Equal(t, bus.KindMessage, in.Kind)
	assert.Equal(t, &bus.Note{Type: "message", From: "boss", Text: "hello\ndata: {\"n\":1}"}, in.Note)

	reply := msg("boss", "coder", envelope.TypeMessage, "you are welcome")
	reply.ReplyTo = "msg-0"
	e.deliver(t, reply)
	assert.Equal(t, bus.KindRecord, a.consume(t).Kind, "a reply is recorded, not answered")

	// A task this agent delegated, whose updates come back to the user's
	// chat: news the user is told about.
	sent, err := a.Post(context.Background(), route.Request{To: "boss", Type: envelope.TypeTask, Text: "review it", Callback: feishu})
	require.NoError(t, err)
	boss.expect(t, "the task", func(m *envelope.Message) bool { return m.ID == sent.ID })
	done := msg("boss", "coder", envelope.TypeTaskUpdate, "looks good")
	done.Task, done.ReplyTo = &envelope.Task{ID: sent.Task.ID, State: envelope.StateCompleted}, sent.ID
	e.deliver(t, done)
	in = a.consume(t)
	assert.Equal(t, "feishu", in.Channel)
	assert.Equal(t, bus.KindChat, in.Kind, "routed to the user's conversation")
	assert.Equal(t, &bus.Note{Type: "task_update", From: "boss", TaskID: sent.Task.ID, State: "completed", Text: "looks good"}, in.Note)

	e.deliver(t, task("coder", "boss", "t-unknown", "old work")) // sent on coder's behalf from elsewhere
	stray := msg("boss", "coder", envelope.TypeTaskUpdate, "")
	stray.Task = &envelope.Task{ID: "t-unknown", State: envelope.StateFailed, Reason: "no such thing"}
	e.deliver(t, stray)
	in = a.consume(t)
	assert.Equal(t, bus.KindRecord, in.Kind)
	assert.Equal(t, "[mailbox task_update from boss: task t-unknown failed] reason: no such thing", in.Note.String())
}

// The loop says a turn failed (bus.OutboundMessage.Failure): the task the
// message carried fails with the reason; a message gets the answer as a
// reply, as any other.
func TestFailedTurnFailsTheTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	boss := e.peer(t, "boss")
	e.deliver(t, task("boss", "coder", "t1", "write sort"))
	boss.expectUpdate(t, "t1", envelope.StateAccepted)
	in := a.consume(t)
	require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: in.Channel, ChatID: in.ChatID,
		Content: "could not complete the task: the model could not be reached", Metadata: in.Metadata,
		Failure: "the model could not be reached"}))
	f := boss.expectUpdate(t, "t1", envelope.StateFailed)
	assert.Equal(t, "the model could not be reached", f.Task.Reason)
	e.waitCard(t, "coder", "freed", tasksAre())

	q := msg("boss", "coder", envelope.TypeMessage, "are you there?")
	e.deliver(t, q)
	in = a.consume(t)
	require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: in.Channel, ChatID: in.ChatID,
		Content: agentloop.FailureReply, Metadata: in.Metadata, Failure: agentloop.FailureReason}))
	r := boss.expect(t, "the reply", func(m *envelope.Message) bool { return m.ReplyTo == q.ID })
	assert.Equal(t, envelope.TypeMessage, r.Type)
	assert.Equal(t, agentloop.FailureReply, r.Text())
}

// A failed turn on a subtask's result, read in the conversation of the
// task this agent works on, fails that task: the failure travels up to the
// conversation the tree began in.
func TestFailedTurnOnASubtasksResultFailsTheTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	lead, coder, reviewer := e.startAgent(t, "lead"), e.startAgent(t, "coder"), e.startAgent(t, "reviewer")
	ctx := context.Background()
	t1, err := lead.Post(ctx, route.Request{To: "coder", Type: envelope.TypeTask, Text: "sort 5 3", Callback: feishu})
	require.NoError(t, err)
	in1 := coder.take(t)
	here := &envelope.Callback{Channel: in1.Channel, ChatID: in1.ChatID, SessionID: in1.SessionKey()}
	check, err := coder.Post(ctx, route.Request{To: "reviewer", Type: envelope.TypeTask, Text: "check 5 3",
		Parent: metaOf(t, in1), Callback: here})
	require.NoError(t, err)
	reviewer.take(t)
	_, err = reviewer.FinishTask(ctx, check.Task.ID, envelope.StateCompleted, "checked", "", nil)
	require.NoError(t, err)
	result := coder.takeUntil(t, "the check's result", func(in bus.InboundMessage) bool {
		return strings.Contains(in.Content, check.Task.ID+" completed")
	})
	require.NoError(t, coder.Send(ctx, bus.OutboundMessage{Channel: result.Channel, ChatID: result.ChatID,
		Content: agentloop.FailureReply, Metadata: result.Metadata, Failure: agentloop.FailureReason}))
	told := lead.takeUntil(t, "t1 failed, in the user's chat", func(in bus.InboundMessage) bool {
		return strings.Contains(in.Content, t1.Task.ID+" failed")
	})
	assert.Equal(t, "feishu", told.Channel)
	assert.Equal(t, agentloop.FailureReason, told.Note.Reason)
	assert.Empty(t, e.card(t, "coder").CurrentTasks, "t1 ended")
}
