package cli

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func TestMessageLineJSON(t *testing.T) {
	t.Parallel()
	msg := &envelope.Message{ID: "m1", From: "a", To: "b", Type: envelope.TypeMessage, TTL: 2,
		Timestamp: envelope.NewTime(time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)),
		Content:   envelope.Content{Parts: []envelope.Part{envelope.TextPart("hi <there>")}}}
	data, err := json.Marshal(newMessageLine("x.msg.json", msg, nil))
	require.NoError(t, err)
	assert.JSONEq(t, `{"file":"x.msg.json","text":"hi <there>","id":"m1","from":"a","to":"b",
		"timestamp":"2026-04-26T10:00:00.000000+00:00","type":"message","ttl":2,"trace":[],
		"content":{"parts":[{"type":"text","text":"hi <there>"}]},"metadata":{},"reply_to":null}`, string(data))

	depth := 2
	line := newMessageLine("y.msg.json", msg, nil)
	line.Depth = &depth
	data, err = json.Marshal(line)
	require.NoError(t, err)
	assert.Regexp(t, `^\{"file":"y.msg.json","depth":2,"text":"hi \\u003cthere\\u003e","id":"m1",`, string(data))

	data, err = json.Marshal(newMessageLine("z.msg.json", nil, errors.New("malformed message: truncated JSON")))
	require.NoError(t, err)
	assert.JSONEq(t, `{"file":"z.msg.json","error":"malformed message: truncated JSON"}`, string(data))
}

func TestKindLabel(t *testing.T) {
	t.Parallel()
	task := &envelope.Task{ID: "t1", State: envelope.StatePending}
	assert.Equal(t, "message", kindLabel(envelope.TypeMessage, nil))
	assert.Equal(t, "message", kindLabel(envelope.TypeMessage, task))
	assert.Equal(t, "task t1 pending", kindLabel(envelope.TypeTask, task))
	assert.Equal(t, "task_update", kindLabel(envelope.TypeTaskUpdate, nil))
}

func TestSummary(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "", envelope.OneLine(nil))
	assert.Equal(t, "one ⏎ two three", envelope.OneLine([]envelope.Part{
		envelope.TextPart("one\ntwo"), envelope.TextPart(""), envelope.TextPart("three")}))
	assert.Equal(t, `see file:/tmp/a.md {"n":1}`, envelope.OneLine([]envelope.Part{
		envelope.FilePart("/tmp/a.md"), envelope.DataPart(map[string]any{"n": 1}), envelope.TextPart("see")}),
		"text first, then the other parts in order")
}
