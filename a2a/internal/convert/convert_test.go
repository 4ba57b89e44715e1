package convert

import (
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Every mailbox state has its A2A state, and every A2A state its
// mailbox report.
func TestStates(t *testing.T) {
	t.Parallel()
	for in, want := range map[envelope.TaskState]a2a.TaskState{
		envelope.StatePending: a2a.TaskStateSubmitted, envelope.StateAccepted: a2a.TaskStateWorking,
		envelope.StateWorking: a2a.TaskStateWorking, envelope.StateCompleted: a2a.TaskStateCompleted,
		envelope.StateFailed: a2a.TaskStateFailed, envelope.StateRejected: a2a.TaskStateRejected,
		envelope.StateCanceled: a2a.TaskStateCanceled, "paused": a2a.TaskStateWorking,
	} {
		assert.Equal(t, want, ToA2A(in), "%s", in)
	}
	for in, want := range map[a2a.TaskState]envelope.TaskState{
		a2a.TaskStateWorking: envelope.StateWorking, a2a.TaskStateInputRequired: envelope.StateWorking,
		a2a.TaskStateCompleted: envelope.StateCompleted, a2a.TaskStateFailed: envelope.StateFailed,
		a2a.TaskStateRejected: envelope.StateFailed, a2a.TaskStateAuthRequired: envelope.StateFailed,
		a2a.TaskStateCanceled: envelope.StateCanceled,
	} {
		got, ok := ToMailbox(in)
		assert.True(t, ok, "%s", in)
		assert.Equal(t, want, got, "%s", in)
	}
	for _, s := range []a2a.TaskState{a2a.TaskStateSubmitted, a2a.TaskStateUnspecified} {
		_, ok := ToMailbox(s)
		assert.False(t, ok, "%s", s)
	}
	assert.Equal(t, "input-required", Short(a2a.TaskStateInputRequired))
	assert.Equal(t, "unspecified", Short("TASK_STATE_NEW"))
}

// Parts cross both ways: text as text, data as data, a file as a file URL
// and back as data naming it; what A2A has and the mailbox has not (raw
// bytes, a value that is no object) as data.
func TestParts(t *testing.T) {
	t.Parallel()
	out := ToA2AParts([]envelope.Part{envelope.TextPart("hi"), envelope.TextPart(""),
		envelope.DataPart(map[string]any{"n": 1}), envelope.FilePart("/tmp/a b.txt"), envelope.FilePart("")})
	assert.Len(t, out, 3)
	assert.Equal(t, "hi", out[0].Text())
	assert.Equal(t, map[string]any{"n": 1}, out[1].Data())
	assert.Equal(t, a2a.URL("file:///tmp/a%20b.txt"), out[2].URL())
	assert.Equal(t, "a b.txt", out[2].Filename)

	raw := a2a.NewRawPart([]byte("xyz"))
	raw.MediaType = "application/octet-stream"
	back := FromA2AParts([]*a2a.Part{out[0], out[1], out[2], raw, a2a.NewDataPart([]any{1, 2}), nil})
	assert.Equal(t, []envelope.Part{
		envelope.TextPart("hi"),
		envelope.DataPart(map[string]any{"n": 1}),
		envelope.DataPart(map[string]any{"url": "file:///tmp/a%20b.txt", "filename": "a b.txt"}),
		envelope.DataPart(map[string]any{"base64": "eHl6", "media_type": "application/octet-stream"}),
		envelope.DataPart(map[string]any{"value": []any{1, 2}}),
	}, back)
	assert.Equal(t, "hi\nthere", Text([]*a2a.Part{a2a.NewTextPart("hi"), nil, a2a.NewDataPart(1), a2a.NewTextPart("there")}))
	assert.Equal(t, "", MessageText(nil))
	assert.Nil(t, AgentMessage(a2a.TaskInfo{TaskID: "t"}, ""))
}

// The hop round-trips as plain JSON values; a malformed one, or a
// negative budget, is ignored; the trace context is read from metadata.
func TestHop(t *testing.T) {
	t.Parallel()
	h := Hop{Task: "task_1", From: "lead", TaskPath: []string{"lead>echo:ab"}, Budget: &envelope.Budget{Tokens: 10}}
	md := WithHop(nil, h)
	_, plain := md[MetaKey].(map[string]any)
	assert.True(t, plain, "plain JSON values, as the SDK's task store wants")
	got, ok := HopOf(md)
	assert.True(t, ok)
	assert.Equal(t, h, got)

	_, ok = HopOf(map[string]any{MetaKey: "nonsense"})
	assert.False(t, ok)
	_, ok = HopOf(nil)
	assert.False(t, ok)
	got, ok = HopOf(map[string]any{MetaKey: map[string]any{"budget": map[string]any{"tokens": -1}}})
	assert.True(t, ok)
	assert.Nil(t, got.Budget, "a negative budget is no budget")

	md = WithTrace(nil, map[string]string{"traceparent": "00-a-b-01", "tracestate": "x=1"})
	assert.Equal(t, map[string]string{"traceparent": "00-a-b-01", "tracestate": "x=1"}, TraceOf(md))
	assert.Nil(t, TraceOf(map[string]any{"traceparent": 7}))
	assert.Nil(t, WithTrace(nil, nil))
}
