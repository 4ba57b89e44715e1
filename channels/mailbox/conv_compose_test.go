package mailbox_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/meta"
	"github.com/switchboard-dev/switchboard/channels/mailbox/route"
)

var convT0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func TestComposeThreads(t *testing.T) {
	first, err := route.Compose("critic", route.Request{To: "executor", Text: "why?", Subject: "dead-code", ExpectsReply: true},
		route.ComposeOptions{Now: convT0})
	require.NoError(t, err)
	assert.Equal(t, first.ID, first.ThreadID, "a new message starts a thread named by its id")
	assert.Equal(t, "dead-code", first.Subject)

	orig := meta.FromMessage(first, false)
	reply, err := route.Compose("executor", route.Request{To: "critic", Text: "on purpose"}, route.ComposeOptions{Now: convT0, Original: &orig})
	require.NoError(t, err)
	assert.Equal(t, first.ID, reply.ThreadID, "a reply inherits the thread")
	assert.Equal(t, first.ID, reply.ReplyTo)
	assert.Equal(t, envelope.KindResponse, reply.Kind())

	orig2 := meta.FromMessage(reply, false)
	again, err := route.Compose("critic", route.Request{To: "executor", Text: "ok"}, route.ComposeOptions{Now: convT0, Original: &orig2})
	require.NoError(t, err)
	assert.Equal(t, first.ID, again.ThreadID, "and so does a reply to the reply")
	assert.Equal(t, 2, again.HopCount)

	joined, err := route.Compose("critic", route.Request{To: "planner", Text: "fyi", ThreadID: first.ID}, route.ComposeOptions{Now: convT0})
	require.NoError(t, err)
	assert.Equal(t, first.ID, joined.ThreadID, "a new message can join a thread by its id")

	// A reply to a nanobot message (no thread id) joins the thread of
	// that message's id.
	nano := meta.Meta{MessageID: "msg_1_critic", From: "critic", To: "executor", Type: envelope.TypeMessage, TTL: 3}
	r, err := route.Compose("executor", route.Request{To: "critic", Text: "x"}, route.ComposeOptions{Now: convT0, Original: &nano})
	require.NoError(t, err)
	assert.Equal(t, "msg_1_critic", r.ThreadID)
}

func TestComposeSubjectAndPriority(t *testing.T) {
	_, err := route.Compose("a", route.Request{To: "b", Text: "x", Subject: "Not Kebab"}, route.ComposeOptions{})
	require.Error(t, err)
	assert.True(t, errors.Is(err, envelope.ErrBadSubject))
	assert.Contains(t, err.Error(), "kebab-case")

	_, err = route.Compose("a", route.Request{To: "b", Text: "x", Priority: 4}, route.ComposeOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "priority 4: want 0 to 3")

	m, err := route.Compose("a", route.Request{To: "b", Text: "x", Priority: 3}, route.ComposeOptions{})
	require.NoError(t, err)
	assert.Equal(t, 3, m.Priority)
}

func TestComposeRepliesOwed(t *testing.T) {
	m, err := route.Compose("a", route.Request{To: "b", Text: "x", ExpectsReply: true},
		route.ComposeOptions{Now: convT0, ReplyTimeout: time.Hour})
	require.NoError(t, err)
	require.NotNil(t, m.ReplyBy)
	assert.True(t, m.ReplyBy.Equal(convT0.Add(time.Hour)), "due after replyTimeout")
	assert.Equal(t, envelope.KindRequest, m.Kind())

	due := convT0.Add(5 * time.Minute)
	m, err = route.Compose("a", route.Request{To: "b", Text: "x", ExpectsReply: true, ReplyBy: due},
		route.ComposeOptions{Now: convT0, ReplyTimeout: time.Hour})
	require.NoError(t, err)
	assert.True(t, m.ReplyBy.Equal(due), "a request's own due time wins")

	m, err = route.Compose("a", route.Request{To: "b", Text: "x"}, route.ComposeOptions{Now: convT0, ReplyTimeout: time.Hour})
	require.NoError(t, err)
	assert.Nil(t, m.ReplyBy, "a notice is owed nothing")
	assert.Equal(t, envelope.KindNotify, m.Kind())

	task, err := route.Compose("a", route.Request{To: "b", Type: envelope.TypeTask, Text: "x"}, route.ComposeOptions{Now: convT0, ReplyTimeout: time.Hour})
	require.NoError(t, err)
	assert.True(t, task.ExpectsReply)
	assert.Nil(t, task.ReplyBy, "a task is due by its deadline")
}

func TestComposeTaskOfPlainMessages(t *testing.T) {
	m, err := route.Compose("worker", route.Request{To: "boss", Text: "which file?", TaskID: "task_7", ExpectsReply: true}, route.ComposeOptions{})
	require.NoError(t, err)
	assert.Equal(t, "task_7", m.TaskID)
	assert.Equal(t, "task_7", m.TaskOf())

	orig := meta.FromMessage(m, false)
	r, err := route.Compose("boss", route.Request{To: "worker", Text: "main.go"}, route.ComposeOptions{Original: &orig})
	require.NoError(t, err)
	assert.Equal(t, "task_7", r.TaskID, "the answer belongs to the same task")

	taskMeta := meta.Meta{MessageID: "m1", From: "boss", To: "worker", Type: envelope.TypeTask,
		Task: &envelope.Task{ID: "task_8"}, TTL: 2}
	q, err := route.Compose("worker", route.Request{To: "boss", Text: "question", ReplyTo: "m1"}, route.ComposeOptions{Original: &taskMeta})
	require.NoError(t, err)
	assert.Equal(t, "task_8", q.TaskID, "a question about a task belongs to it")
}
