package console_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestActionsJoinTheTrace: the operator's reply joins the trace of the
// message it answers, a cancel the trace of the task; a new message
// carries no trace context when tracing is off.
func TestActionsJoinTheTrace(t *testing.T) {
	t.Parallel()
	_, be, srv := newConsole(t)
	ctx := testkit.Ctx(t)
	const askTrace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	const taskTrace = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	now := envelope.NewTime(time.Now())
	ask := &envelope.Message{ID: envelope.NewID(), From: "lead", To: "operator", Type: envelope.TypeMessage, TTL: 2,
		Trace: []string{"lead"}, Timestamp: now, ExpectsReply: true, Traceparent: askTrace,
		Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("which one?")}}}
	task := &envelope.Message{ID: envelope.NewID(), From: "lead", To: "worker", Type: envelope.TypeTask, TTL: 2,
		Trace: []string{"lead"}, Timestamp: now, Task: &envelope.Task{ID: "t1", State: envelope.StatePending},
		Traceparent: taskTrace, Tracestate: "k=v"}
	require.NoError(t, be.Deliver(ctx, ask))
	require.NoError(t, be.Deliver(ctx, task))

	require.Equal(t, http.StatusOK, post(t, srv, "/api/action/send", `{"to":"lead","text":"the blue one","reply_to":"`+ask.ID+`"}`, nil))
	require.Equal(t, http.StatusOK, post(t, srv, "/api/action/cancel", `{"task_id":"t1"}`, nil))
	require.Equal(t, http.StatusOK, post(t, srv, "/api/action/send", `{"to":"lead","text":"unrelated"}`, nil))

	got := map[string]*envelope.Message{}
	require.NoError(t, be.Browse(ctx, func(s store.Stored) bool {
		if s.Message.From == "operator" || s.Message.Type == envelope.TypeTaskUpdate {
			got[s.Message.To+" "+string(s.Message.Type)+" "+s.Message.ReplyTo] = s.Message
		}
		return true
	}))
	reply := got["lead message "+ask.ID]
	require.NotNil(t, reply, "%v", got)
	assert.Equal(t, askTrace, reply.Traceparent, "tracing off: the reply carries the context of what it answers")
	for _, to := range []string{"worker", "lead"} {
		cancel := got[to+" task_update "+task.ID]
		require.NotNil(t, cancel, "the cancel to %s: %v", to, got)
		assert.Equal(t, taskTrace, cancel.Traceparent)
		assert.Equal(t, "k=v", cancel.Tracestate)
	}
	fresh := got["lead message "]
	require.NotNil(t, fresh, "%v", got)
	assert.Empty(t, fresh.Traceparent)
}
