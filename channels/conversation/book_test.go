package conversation_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/conversation"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// message is a message of chat taken in through the channel "term".
func message(id, chat string) bus.InboundMessage {
	in := bus.InboundMessage{ID: id, Channel: "term", ChatID: chat, Content: "hi"}
	conversation.Tag(&in)
	return in
}

// answer is the agent's answer to in.
func answer(in bus.InboundMessage, text string) bus.OutboundMessage {
	return bus.OutboundMessage{Channel: in.Channel, ChatID: in.ChatID, Content: text, Metadata: in.Metadata}
}

func TestRecordAndRead(t *testing.T) {
	t.Parallel()
	b, err := conversation.Open("term", conversation.Options{Keep: 2})
	require.NoError(t, err)
	in := message("m1", "c1")
	a, err := b.Record(answer(in, "one"))
	require.NoError(t, err)
	assert.Equal(t, int64(1), a.Seq)
	assert.Equal(t, "m1", a.ReplyTo, "the answer names the message it answers")
	_, err = b.Record(bus.OutboundMessage{ChatID: "c1", Content: "two", Failure: "broke"})
	require.NoError(t, err)
	_, err = b.Record(bus.OutboundMessage{ChatID: "c1", Content: "three"})
	require.NoError(t, err)
	_, err = b.Record(bus.OutboundMessage{ChatID: "c2", Content: "elsewhere"})
	require.NoError(t, err)

	got, _ := b.Since("c1", 0)
	require.Len(t, got, 2, "Keep: the latest two")
	assert.Equal(t, []int64{2, 3}, []int64{got[0].Seq, got[1].Seq})
	assert.Equal(t, "broke", got[0].Failure)
	assert.Empty(t, got[1].ReplyTo, "news answers no message")
	got, _ = b.Since("c1", 2)
	require.Len(t, got, 1)
	assert.Equal(t, "three", got[0].Text)

	ctx, cancel := context.WithCancel(testkit.Ctx(t))
	done := make(chan []conversation.Answer)
	go func() { as, _ := b.Wait(ctx, "c1", 3); done <- as }()
	_, err = b.Record(bus.OutboundMessage{ChatID: "c1", Content: "four"})
	require.NoError(t, err)
	as := testkit.Recv(t, done, "the long poll's answer")
	require.Len(t, as, 1)
	assert.Equal(t, "four", as[0].Text)
	cancel()
	_, err = b.Wait(ctx, "c1", 4)
	assert.ErrorIs(t, err, context.Canceled)

	require.NoError(t, b.Close())
	_, err = b.Record(bus.OutboundMessage{ChatID: "c1", Content: "late"})
	assert.ErrorIs(t, err, conversation.ErrClosed)
}

// TestAnswersKeptInTheFile: with a file, the answers and their numbers
// outlive the Book; a torn last line is dropped.
func TestAnswersKeptInTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "answers.jsonl")
	b, err := conversation.Open("term", conversation.Options{Path: path, Keep: 3})
	require.NoError(t, err)
	for _, text := range []string{"a", "b", "c", "d"} {
		_, err := b.Record(bus.OutboundMessage{ChatID: "c1", Content: text})
		require.NoError(t, err)
	}
	require.NoError(t, b.Close())
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"seq":5,"chat":"c1","te`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	b, err = conversation.Open("term", conversation.Options{Path: path, Keep: 3})
	require.NoError(t, err)
	defer b.Close()
	got, _ := b.Since("c1", 0)
	require.Len(t, got, 3)
	assert.Equal(t, []string{"b", "c", "d"}, []string{got[0].Text, got[1].Text, got[2].Text})
	a, err := b.Record(bus.OutboundMessage{ChatID: "c1", Content: "e"})
	require.NoError(t, err)
	assert.Equal(t, int64(5), a.Seq, "numbering goes on")
}

// turn plays a turn of the agent loop on in through hook: the provider
// answers text; delegated, when set, is the result of a delegate_task
// call of the turn.
func turn(hook agent.Hook, in bus.InboundMessage, delegated, text string) {
	ctx := context.Background()
	t := agent.NewTurn(in)
	_, end := hook.Turn(ctx, t)
	if delegated != "" {
		_, toolEnd := hook.Tool(ctx, t, agent.ToolCall{Name: "delegate_task"})
		toolEnd(delegated, false)
	}
	_, chatEnd, err := hook.Chat(ctx, t, &agent.Request{})
	if err != nil {
		panic(err)
	}
	chatEnd(&agent.Response{Content: text}, nil)
	end(nil, agent.Usage{})
}

// update is the update of task with state coming back to in's chat.
func update(in bus.InboundMessage, task, state string) bus.InboundMessage {
	return bus.InboundMessage{Channel: in.Channel, ChatID: in.ChatID, SenderID: "coder",
		Note: &bus.Note{Type: bus.NoteTaskUpdate, From: "coder", TaskID: task, State: state}}
}

// TestFollowWaitsForTheDelegatedTasks: Follow passes the answer to the
// message, and then every answer until the tasks delegated from the chat
// ended and the last update was answered; an update of a task the chat
// did not delegate, or a turn that answers nothing, changes nothing.
func TestFollowWaitsForTheDelegatedTasks(t *testing.T) {
	t.Parallel()
	b, err := conversation.Open("term", conversation.Options{})
	require.NoError(t, err)
	hook := b.Hook()
	in := message("m1", "c1")
	var got []string
	followed := make(chan error, 1)
	go func() {
		followed <- b.Follow(testkit.Ctx(t), "c1", "m1", true, func(a conversation.Answer) { got = append(got, a.Text) })
	}()

	turn(hook, in, "delegated task t1 to coder; its updates will come back to this conversation", "I asked coder.")
	st := b.Status("c1")
	assert.Equal(t, []conversation.Task{{ID: "t1", Agent: "coder"}}, st.Open)
	assert.True(t, st.Busy, "the answer is on its way")
	_, err = b.Record(answer(in, "I asked coder."))
	require.NoError(t, err)
	assert.False(t, b.Status("c1").Busy)
	assert.False(t, b.Status("c1").Settled())

	up := update(in, "t1", "working")
	turn(hook, up, "", "coder is working on it.")
	_, err = b.Record(answer(up, "coder is working on it."))
	require.NoError(t, err)
	other := update(in, "t9", "completed")
	turn(hook, other, "", "") // an empty answer is none
	up = update(in, "t1", "completed")
	turn(hook, up, "", "coder finished: 1 2 3")
	st = b.Status("c1")
	assert.Empty(t, st.Open, "the final update ended the task")
	assert.True(t, st.Busy, "its answer is still to come")
	_, err = b.Record(answer(up, "coder finished: 1 2 3"))
	require.NoError(t, err)

	require.NoError(t, testkit.Recv(t, followed, "Follow's end"))
	assert.Equal(t, []string{"I asked coder.", "coder is working on it.", "coder finished: 1 2 3"}, got)
	assert.True(t, b.Status("c1").Settled())

	// Asked again for a message answered already: its answer at once.
	got = nil
	require.NoError(t, b.Follow(testkit.Ctx(t), "c1", "m1", false, func(a conversation.Answer) { got = append(got, a.Text) }))
	assert.Equal(t, []string{"I asked coder."}, got)
}

// TestFollowUnsettled: Follow's error says what was still to come.
func TestFollowUnsettled(t *testing.T) {
	t.Parallel()
	b, err := conversation.Open("term", conversation.Options{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = b.Follow(ctx, "c1", "m1", true, func(conversation.Answer) {})
	var u *conversation.UnsettledError
	require.ErrorAs(t, err, &u)
	assert.False(t, u.Answered)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "message m1 not answered yet: context canceled", err.Error())

	in := message("m1", "c1")
	turn(b.Hook(), in, "delegated task t1 to coder; ...", "I asked coder.")
	_, err = b.Record(answer(in, "I asked coder."))
	require.NoError(t, err)
	err = b.Follow(ctx, "c1", "m1", true, func(conversation.Answer) {})
	require.ErrorAs(t, err, &u)
	assert.True(t, u.Answered)
	assert.Equal(t, "delegated task(s) not finished yet: t1 (coder): context canceled", err.Error())

	// Turns of other channels, and failed tool calls, are not followed.
	turn(b.Hook(), bus.InboundMessage{Channel: "feishu", ChatID: "c1"}, "delegated task t2 to coder; ...", "x")
	assert.Len(t, b.Status("c1").Open, 1)
}
