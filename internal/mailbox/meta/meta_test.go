package meta

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func TestMetaSurvivesJSONRoundTrip(t *testing.T) {
	t.Parallel()
	m := Meta{MessageID: "m1", From: "a", To: "b", Type: envelope.TypeTask,
		Task: &envelope.Task{ID: "t1", State: envelope.StatePending}, TTL: 2, Trace: []string{"a"}}
	md := WithReply(With(nil, m), Reply{State: envelope.StateFailed, Reason: "no"})
	data, err := json.Marshal(md)
	require.NoError(t, err)
	var back map[string]any
	require.NoError(t, json.Unmarshal(data, &back))
	got, ok := Of(back)
	require.True(t, ok)
	assert.Equal(t, m, *got)
	r, ok := ReplyOf(back)
	require.True(t, ok)
	assert.Equal(t, Reply{State: envelope.StateFailed, Reason: "no"}, r)
	ptr := map[string]any{metaKey: &m}
	got, ok = Of(ptr)
	require.True(t, ok)
	assert.Equal(t, "t1", got.TaskOf())
	_, ok = Of(map[string]any{metaKey: (*Meta)(nil)})
	assert.False(t, ok)
	_, ok = Of(map[string]any{metaKey: "garbage"})
	assert.False(t, ok)
}

func TestClassify(t *testing.T) {
	t.Parallel()
	task := &envelope.Task{ID: "t", State: envelope.StatePending}
	cb := &envelope.Callback{Channel: "feishu", ChatID: "c"}
	tests := []struct {
		name string
		md   map[string]any
		want Kind
	}{
		{"chat", nil, KindChat},
		{"task", With(nil, Meta{From: "a", Type: envelope.TypeTask, Task: task}), KindTask},
		{"message", With(nil, Meta{From: "a", Type: envelope.TypeMessage}), KindMessage},
		{"reply", With(nil, Meta{From: "a", Type: envelope.TypeMessage, ReplyTo: "x"}), KindRecordOnly},
		{"update", With(nil, Meta{From: "a", Type: envelope.TypeTaskUpdate, Task: task}), KindRecordOnly},
		{"routed update", With(nil, Meta{From: "a", Type: envelope.TypeTaskUpdate, Task: task, Callback: cb}), KindChat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, m := Classify(tt.md)
			assert.Equal(t, tt.want, k, k.String())
			assert.Equal(t, tt.md != nil, m != nil)
		})
	}
}

func TestAnswers(t *testing.T) {
	t.Parallel()
	md := With(nil, Meta{From: "a", Type: envelope.TypeTask, Task: &envelope.Task{ID: "t"}})
	k, _, ok := Answers(md, "a")
	assert.True(t, ok)
	assert.Equal(t, KindTask, k)
	_, _, ok = Answers(md, "b") // sent elsewhere: a forward, not an answer
	assert.False(t, ok)
	_, _, ok = Answers(nil, "a")
	assert.False(t, ok)
	routed := With(nil, Meta{From: "a", Type: envelope.TypeTaskUpdate, Callback: &envelope.Callback{Channel: "x"}})
	_, _, ok = Answers(routed, "a")
	assert.False(t, ok)
}
