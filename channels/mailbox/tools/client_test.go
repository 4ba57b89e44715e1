package tools_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/tools"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// clientCaller is how `switchboard mcp` calls the tools: as the registered
// agent, without a turn, naming the messages check_inbox handed it.
func clientCaller(mb tools.Mailbox, handed ...meta.Meta) tools.Caller {
	return tools.Caller{Mailbox: mb, Now: func() time.Time { return clock }, Handed: func(id string) (meta.Meta, bool) {
		for _, mt := range handed {
			if mt.MessageID == id {
				return mt, true
			}
		}
		return meta.Meta{}, false
	}}
}

func TestClientListsEveryAgentAsCards(t *testing.T) {
	fake := newFake()
	res, err := tools.ListAgents.Run(context.Background(), clientCaller(fake), tools.ListArgs{})
	require.NoError(t, err)
	cards := res.Data.([]view.Agent)
	require.Len(t, cards, 4, "offline agents too, unless online_only")
	assert.Equal(t, "sleeper", cards[3].AgentID)

	res, err = tools.ListAgents.Run(context.Background(), clientCaller(fake), tools.ListArgs{OnlineOnly: true, Capability: "sorting"})
	require.NoError(t, err)
	cards = res.Data.([]view.Agent)
	require.Len(t, cards, 1)
	assert.Equal(t, "coder", cards[0].AgentID)

	// A loop's model sees the agents online, whatever it asks.
	res, err = tools.ListAgents.Run(context.Background(), loopCaller(fake), tools.ListArgs{})
	require.NoError(t, err)
	assert.Len(t, res.Data.([]view.Agent), 3)
}

// A client may write to an agent that has not registered yet: the message
// waits in its inbox.
func TestClientSendsToAnyAgent(t *testing.T) {
	fake := newFake()
	res, err := tools.SendMessage.Run(context.Background(), clientCaller(fake), tools.SendArgs{To: "bob", Text: "hello bob",
		Subject: "greeting", ExpectsReply: true, ReplyWithin: 60, Priority: 2, Data: map[string]any{"n": 1}})
	require.NoError(t, err)
	assert.Equal(t, tools.Sent{MessageID: "msg-1", To: []string{"bob"}}, res.Data)
	assert.Equal(t, route.Request{To: "bob", Text: "hello bob", Subject: "greeting", ExpectsReply: true,
		ReplyBy: clock.Add(60 * time.Second), Priority: 2, Parts: []envelope.Part{envelope.DataPart(map[string]any{"n": 1})}},
		fake.posts()[0], "no parent: the client handles no message")

	res, err = tools.SendMessage.Run(context.Background(), clientCaller(fake), tools.SendArgs{To: "cap:counting", Text: "fyi"})
	require.NoError(t, err)
	assert.Equal(t, tools.Sent{To: []string{"coder", "helper"}, ThreadID: "msg-2"}, res.Data)

	_, err = tools.SendMessage.Run(context.Background(), clientCaller(fake), tools.SendArgs{To: "bob"})
	assert.EqualError(t, err, "text is empty")
	_, err = tools.SendMessage.Run(context.Background(), clientCaller(fake), tools.SendArgs{To: "bob", Data: map[string]any{"x": true}})
	assert.NoError(t, err, "data alone is a message")
}

func TestClientDelegates(t *testing.T) {
	fake := newFake()
	res, err := tools.DelegateTask.Run(context.Background(), clientCaller(fake), tools.DelegateArgs{To: "bob", Task: "sort 2 1",
		DeadlineSeconds: 30})
	require.NoError(t, err)
	assert.Equal(t, tools.Sent{MessageID: "msg-1", TaskID: "task_1", To: []string{"bob"}}, res.Data)
	assert.Equal(t, route.Request{To: "bob", Type: envelope.TypeTask, Text: "sort 2 1", Deadline: clock.Add(30 * time.Second)},
		fake.posts()[0], "no callback: the updates come to the client's inbox")

	res, err = tools.DelegateTask.Run(context.Background(), clientCaller(fake), tools.DelegateArgs{Capability: "counting", Task: "count a b"})
	require.NoError(t, err)
	assert.Equal(t, []string{"coder"}, res.Data.(tools.Sent).To)
	assert.Equal(t, "any:counting", fake.posts()[1].Via)
}

// A client names the message it answers; a task is ended as update_task
// ends it.
func TestClientReplies(t *testing.T) {
	q := meta.Meta{MessageID: "m-q", From: "bob", Type: envelope.TypeMessage, ExpectsReply: true}
	tk := meta.Meta{MessageID: "m-t", From: "bob", Type: envelope.TypeTask, Task: &envelope.Task{ID: "t-1"}}
	fake := newFake()
	c := clientCaller(fake, q, tk)
	res, err := tools.Reply.Run(context.Background(), c, tools.ReplyArgs{MessageID: "m-q", Text: "yes"})
	require.NoError(t, err)
	assert.Equal(t, tools.Sent{MessageID: "msg-1", To: []string{"bob"}}, res.Data)
	assert.Equal(t, route.Request{To: "bob", Text: "yes", Parent: &q, ReplyTo: "m-q"}, fake.posts()[0])

	res, err = tools.Reply.Run(context.Background(), c, tools.ReplyArgs{MessageID: "m-t", Text: "cannot", State: "failed"})
	require.NoError(t, err)
	assert.Equal(t, []finish{{"t-1", envelope.StateFailed, "", "cannot"}}, fake.finished)
	assert.Equal(t, "failed", fmt.Sprint(res.Data.(map[string]any)["state"]))

	for _, tt := range []struct {
		args tools.ReplyArgs
		want string
	}{
		{tools.ReplyArgs{MessageID: "nope", Text: "x"}, `no message "nope" was handed to you (check_inbox lists the ids)`},
		{tools.ReplyArgs{Text: "x"}, "message_id is required"},
		{tools.ReplyArgs{MessageID: "m-q"}, "text is empty: write the answer"},
	} {
		_, err := tools.Reply.Run(context.Background(), c, tt.args)
		assert.ErrorContains(t, err, tt.want)
	}
}

func TestUpdateTask(t *testing.T) {
	for _, tt := range []struct {
		args tools.UpdateArgs
		want finish
	}{
		{tools.UpdateArgs{TaskID: "t-1", State: "accept"}, finish{"t-1", envelope.StateAccepted, "", ""}},
		{tools.UpdateArgs{TaskID: "t-1", State: "progress", Text: "half"}, finish{"t-1", envelope.StateWorking, "half", ""}},
		{tools.UpdateArgs{TaskID: "t-1", State: "Complete", Text: "done"}, finish{"t-1", envelope.StateCompleted, "done", ""}},
		{tools.UpdateArgs{TaskID: "t-1", State: "fail", Text: "broke"}, finish{"t-1", envelope.StateFailed, "broke", "broke"}},
		{tools.UpdateArgs{TaskID: "t-1", State: "failed", Text: "broke", Reason: "disk full"}, finish{"t-1", envelope.StateFailed, "broke", "disk full"}},
	} {
		t.Run(tt.args.State, func(t *testing.T) {
			fake := newFake()
			res, err := tools.UpdateTask.Run(context.Background(), clientCaller(fake), tt.args)
			require.NoError(t, err)
			assert.Equal(t, []finish{tt.want}, fake.finished)
			assert.Equal(t, map[string]any{"task_id": "t-1", "state": tt.want.State, "message_id": "update", "to": ""}, res.Data)
		})
	}
	_, err := tools.UpdateTask.Run(context.Background(), clientCaller(newFake()), tools.UpdateArgs{TaskID: "t-1", State: "done"})
	assert.EqualError(t, err, `state "done": want accept, progress, complete or fail`)
}
