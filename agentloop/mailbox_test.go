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
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// fromAgent returns a mailbox message from agent, as the mailbox channel
// publishes it.
func fromAgent(agent string, typ envelope.Type, text string, task *envelope.Task) bus.InboundMessage {
	mt := meta.Meta{MessageID: "msg-" + agent + "-" + text, From: agent, To: "me", Type: typ, Task: task,
		TTL: 2, Trace: []string{agent}}
	if text != "" {
		mt.Parts = []envelope.Part{envelope.TextPart(text)}
	}
	return bus.InboundMessage{Channel: mailbox.ChannelName, SenderID: agent, ChatID: agent, Content: text,
		Metadata: meta.With(nil, mt)}
}

// routedUpdate returns a task_update routed back to user chat "u1" of feishu.
func routedUpdate(agent string, state envelope.TaskState, text, reason string) bus.InboundMessage {
	in := fromAgent(agent, envelope.TypeTaskUpdate, text, &envelope.Task{ID: "task_7", State: state, Reason: reason})
	mt, _ := meta.Of(in.Metadata)
	mt.Callback = &envelope.Callback{Channel: "feishu", ChatID: "u1", SessionID: "feishu:u1"}
	in.Channel, in.ChatID, in.SessionKeyOverride = "feishu", "u1", "feishu:u1"
	in.Metadata = meta.With(nil, *mt)
	return in
}

func TestLoopAnswersAMailboxTask(t *testing.T) {
	rec := &recorder{next: scripted.New()}
	s := start(t, agentloop.Config{Provider: rec})
	in := fromAgent("researcher", envelope.TypeTask, "sort 5 3 9 1", &envelope.Task{ID: "task_1", State: envelope.StatePending})
	s.send(t, in)
	out := s.recv(t)
	assert.Equal(t, mailbox.ChannelName, out.Channel)
	assert.Equal(t, "researcher", out.ChatID)
	assert.Equal(t, "1 3 5 9", out.Content)
	mt, ok := meta.Of(out.Metadata)
	require.True(t, ok, "the reply carries the task's mt, so the channel finishes the task")
	assert.Equal(t, "task_1", mt.Task.ID)
	_, hasReply := meta.ReplyOf(out.Metadata)
	assert.False(t, hasReply, "a plain answer completes the task")
	assert.Equal(t, "[mailbox task from researcher] sort 5 3 9 1", lastUser(rec.requests()[0]))
}

func TestLoopFailsATaskWhenTheProviderFails(t *testing.T) {
	p := providerFunc(func(context.Context, agent.Request) (*agent.Response, error) {
		return nil, errors.New("quota exceeded")
	})
	s := start(t, agentloop.Config{Provider: p})
	s.send(t, fromAgent("researcher", envelope.TypeTask, "sort 1", &envelope.Task{ID: "task_1"}))
	out := s.recv(t)
	assert.Equal(t, "researcher", out.ChatID)
	reply, ok := meta.ReplyOf(out.Metadata)
	require.True(t, ok)
	assert.Equal(t, meta.Reply{State: envelope.StateFailed, Reason: agentloop.FailureReason}, reply,
		"the reason is short; the error is in the log")
	_, ok = meta.Of(out.Metadata)
	assert.True(t, ok)
}

func TestLoopFailsATaskItCannotDo(t *testing.T) {
	s := start(t, agentloop.Config{Provider: scripted.New()})
	s.send(t, fromAgent("researcher", envelope.TypeTask, "compute 1/0", &envelope.Task{ID: "task_1"}))
	reply, ok := meta.ReplyOf(s.recv(t).Metadata)
	require.True(t, ok)
	assert.Equal(t, envelope.StateFailed, reply.State)
	assert.Equal(t, "division by zero", reply.Reason)
}

func TestLoopRecordsButDoesNotAnswerMailboxUpdates(t *testing.T) {
	rec := &recorder{next: scripted.New()}
	s := start(t, agentloop.Config{Provider: rec})
	s.send(t, fromAgent("coder", envelope.TypeTaskUpdate, "1 3 5 9", &envelope.Task{ID: "task_1", State: envelope.StateCompleted}))
	reply := fromAgent("coder", envelope.TypeMessage, "you are welcome", nil)
	mt, _ := meta.Of(reply.Metadata)
	mt.ReplyTo = "msg-0"
	reply.Metadata = meta.With(nil, *mt)
	s.send(t, reply)
	// Same session, handled in order: the first answer must be this one's.
	s.send(t, fromAgent("coder", envelope.TypeMessage, "count words in a b c", nil))
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
		state        envelope.TaskState
		text, reason string
		want         string
	}{
		{envelope.StateCompleted, "1 3 5 9", "", "coder finished: 1 3 5 9"},
		{envelope.StateAccepted, "", "", "coder accepted the task and is working on it."},
		{envelope.StateRejected, "", "declined: no capability for sort", "coder could not do it: declined: no capability for sort"},
		{envelope.StateFailed, "", "deadline passed", "coder could not do it: deadline passed"},
	} {
		t.Run(string(tt.state), func(t *testing.T) {
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
	s.send(t, routedUpdate("coder", envelope.StateCompleted, "done", ""))
	s.recv(t)
	assert.Equal(t, []string{"user: sort 2 1", "assistant: 1 2",
		"user: [mailbox task_update from coder: task task_7 completed] done"}, convo(rec.requests()[1]))
}

func TestLoopJudge(t *testing.T) {
	task := fromAgent("researcher", envelope.TypeTask, "sort 3 1", &envelope.Task{ID: "task_1"})
	newLoop := func(p agent.Provider, caps ...string) *agentloop.Loop {
		l, err := agentloop.New(agentloop.Config{Workspace: t.TempDir(), Bus: bus.New(1), Provider: p, Capabilities: caps})
		require.NoError(t, err)
		return l
	}
	var judge mailbox.Judge = newLoop(scripted.New(), "sorting").Judge
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
}

type judgeSpy struct {
	providerFunc
	info *agent.TaskInfo
}

func (j judgeSpy) JudgeTask(_ context.Context, info agent.TaskInfo) (bool, string) {
	*j.info = info
	return true, ""
}
