package agentloop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/bus"
)

// kinds are what a message from another agent asks of the agent, by its
// type, as the mailbox channel frames it (bus.Kind).
var kinds = map[string]bus.Kind{bus.NoteTask: bus.KindTask, bus.NoteMessage: bus.KindMessage, bus.NoteTaskUpdate: bus.KindRecord}

// fromAgent returns a message from agent, as a channel that carries
// messages between agents (the mailbox) publishes it: its kind, its note
// and metadata of the channel's own, which the loop copies into its
// answer without reading it.
func fromAgent(agent, typ, text, taskID string) bus.InboundMessage {
	id := "msg-" + agent + "-" + text
	return bus.InboundMessage{Channel: "mailbox", SenderID: agent, ChatID: agent, Content: text, ID: id,
		Metadata: map[string]any{"mailbox": id}, Kind: kinds[typ],
		Note: &bus.Note{Type: typ, From: agent, TaskID: taskID, Text: text}}
}

// update returns a task_update from agent.
func update(agent, taskID, state, text, reason string) bus.InboundMessage {
	in := fromAgent(agent, bus.NoteTaskUpdate, text, taskID)
	in.Note.State, in.Note.Reason = state, reason
	return in
}

// routedUpdate returns a task_update routed back to user chat "u1" of
// feishu: news the user is told about.
func routedUpdate(agent, state, text, reason string) bus.InboundMessage {
	in := update(agent, "task_7", state, text, reason)
	in.Channel, in.ChatID, in.SessionKeyOverride, in.Kind = "feishu", "u1", "feishu:u1", bus.KindChat
	return in
}

func TestLoopAnswersAMailboxTask(t *testing.T) {
	rec := &recorder{next: scripted.New()}
	s := start(t, agentloop.Config{Provider: rec})
	in := fromAgent("researcher", bus.NoteTask, "sort 5 3 9 1", "task_1")
	s.send(t, in)
	out := s.recv(t)
	assert.Equal(t, "mailbox", out.Channel)
	assert.Equal(t, "researcher", out.ChatID)
	assert.Equal(t, "1 3 5 9", out.Content)
	assert.Equal(t, in.Metadata, out.Metadata, "the reply carries the task's metadata, so the channel finishes the task")
	assert.Empty(t, out.Failure, "a plain answer completes the task")
	assert.Equal(t, "[mailbox task from researcher] sort 5 3 9 1", lastUser(rec.requests()[0]))
}

func TestLoopFailsATaskWhenTheProviderFails(t *testing.T) {
	p := providerFunc(func(context.Context, agent.Request) (*agent.Response, error) {
		return nil, errors.New("quota exceeded")
	})
	s := start(t, agentloop.Config{Provider: p})
	in := fromAgent("researcher", bus.NoteTask, "sort 1", "task_1")
	s.send(t, in)
	out := s.recv(t)
	assert.Equal(t, "researcher", out.ChatID)
	assert.Equal(t, agentloop.FailureReason, out.Failure, "the reason is short; the error is in the log")
	assert.Equal(t, "could not complete the task: "+agentloop.FailureReason, out.Content)
	assert.Equal(t, in.Metadata, out.Metadata)
}

func TestLoopFailsATaskItCannotDo(t *testing.T) {
	s := start(t, agentloop.Config{Provider: scripted.New()})
	s.send(t, fromAgent("researcher", bus.NoteTask, "compute 1/0", "task_1"))
	out := s.recv(t)
	assert.Equal(t, "division by zero", out.Failure, "the task fails with the reason")
	assert.Equal(t, "could not complete the task: division by zero", out.Content)
}

// A failed turn on anything else tells the person, and says it failed: a
// channel that carries tasks may fail the task the conversation works on.
func TestLoopReportsTheFailureOfAnyTurn(t *testing.T) {
	p := providerFunc(func(context.Context, agent.Request) (*agent.Response, error) {
		return nil, errors.New("quota exceeded")
	})
	s := start(t, agentloop.Config{Provider: p})
	s.send(t, routedUpdate("coder", "completed", "2 1", ""))
	out := s.recv(t)
	assert.Equal(t, agentloop.FailureReply, out.Content)
	assert.Equal(t, agentloop.FailureReason, out.Failure)
}

func TestLoopRecordsButDoesNotAnswerMailboxUpdates(t *testing.T) {
	rec := &recorder{next: scripted.New()}
	s := start(t, agentloop.Config{Provider: rec})
	s.send(t, update("coder", "task_1", "completed", "1 3 5 9", ""))
	reply := fromAgent("coder", bus.NoteMessage, "you are welcome", "")
	reply.Kind = bus.KindRecord // a reply to one of this agent's messages
	s.send(t, reply)
	// Same session, handled in order: the first answer must be this one's.
	s.send(t, fromAgent("coder", bus.NoteMessage, "count words in a b c", ""))
	out := s.recv(t)
	assert.Equal(t, "3", out.Content)
	reqs := rec.requests()
	require.Len(t, reqs, 1, "the update and the reply never reached the provider")
	assert.Equal(t, []string{
		"user: [mailbox task_update from coder: task task_1 completed] 1 3 5 9",
		"user: [mailbox message from coder] you are welcome",
		"user: [mailbox message from coder] count words in a b c",
	}, convo(reqs[0]))
}

func TestLoopTellsTheUserARoutedUpdate(t *testing.T) {
	for _, tt := range []struct {
		state        string
		text, reason string
		want         string
	}{
		{"completed", "1 3 5 9", "", "coder finished: 1 3 5 9"},
		{"accepted", "", "", "coder accepted the task and is working on it."},
		{"rejected", "", "declined: no capability for sort", "coder could not do it: declined: no capability for sort"},
		{"failed", "", "deadline passed", "coder could not do it: deadline passed"},
	} {
		t.Run(tt.state, func(t *testing.T) {
			s := start(t, agentloop.Config{Provider: scripted.New()})
			s.send(t, routedUpdate("coder", tt.state, tt.text, tt.reason))
			out := s.recv(t)
			assert.Equal(t, "feishu", out.Channel)
			assert.Equal(t, "u1", out.ChatID)
			assert.Equal(t, tt.want, out.Content)
		})
	}
}

func TestLoopRoutedUpdateJoinsTheUsersConversation(t *testing.T) {
	rec := &recorder{next: scripted.New()}
	s := start(t, agentloop.Config{Provider: rec})
	s.send(t, user("u1", "sort 2 1"))
	s.recv(t)
	s.send(t, routedUpdate("coder", "completed", "done", ""))
	s.recv(t)
	assert.Equal(t, []string{"user: sort 2 1", "assistant: 1 2",
		"user: [mailbox task_update from coder: task task_7 completed] done"}, convo(rec.requests()[1]))
}

func TestLoopJudge(t *testing.T) {
	task := fromAgent("researcher", bus.NoteTask, "sort 3 1", "task_1")
	newLoop := func(p agent.Provider, caps ...string) *agentloop.Loop {
		l, err := agentloop.New(agentloop.Config{Workspace: t.TempDir(), Bus: bus.New(1), Provider: p, Capabilities: caps})
		require.NoError(t, err)
		return l
	}
	var judge func(context.Context, bus.InboundMessage) (bool, string)
	var ch agentloop.TaskChannel = judgeTaker{set: func(j func(context.Context, bus.InboundMessage) (bool, string)) { judge = j }}
	ch.SetJudge(newLoop(scripted.New(), "sorting").Judge) // what host gives a channel that delegates tasks
	ok, why := judge(context.Background(), task)
	assert.True(t, ok, why)

	ok, why = newLoop(scripted.New(), "counting").Judge(context.Background(), task)
	assert.False(t, ok)
	assert.Equal(t, "no capability for sort", why)

	ok, _ = newLoop(echo()).Judge(context.Background(), task)
	assert.True(t, ok, "a model whose judgement cannot be read accepts")

	var got agent.TaskInfo
	spy := judgeSpy{providerFunc: echo(), info: &got}
	newLoop(spy, "a", "b").Judge(context.Background(), task)
	assert.Equal(t, agent.TaskInfo{TaskID: "task_1", From: "researcher", Text: "sort 3 1", Capabilities: []string{"a", "b"}}, got)

	plain := bus.InboundMessage{Channel: "a2a", SenderID: "peer", Content: "sort 2 1", Kind: bus.KindTask}
	newLoop(spy).Judge(context.Background(), plain)
	assert.Equal(t, agent.TaskInfo{From: "peer", Text: "sort 2 1"}, got, "a task without a note is judged by its content")
}

// judgeTaker is a channel that delegates tasks (agentloop.TaskChannel).
type judgeTaker struct {
	set func(func(context.Context, bus.InboundMessage) (bool, string))
}

func (j judgeTaker) SetJudge(f func(ctx context.Context, task bus.InboundMessage) (bool, string)) {
	j.set(f)
}

type judgeSpy struct {
	providerFunc
	info *agent.TaskInfo
}

func (j judgeSpy) JudgeTask(_ context.Context, info agent.TaskInfo) (bool, string) {
	*j.info = info
	return true, ""
}
