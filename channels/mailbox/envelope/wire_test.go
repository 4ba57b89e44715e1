package envelope_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// nanobotKeys are the keys nanobot's reader uses, with the JSON type it
// needs for each ("null|string": either).
var nanobotKeys = map[string]string{
	"id": "string", "from": "string", "to": "string", "timestamp": "string",
	"type": "string", "ttl": "number", "trace": "array", "content": "object",
	"reply_to": "null|string", "metadata": "object",
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "?"
}

// nanobotShapeError describes the first way in which data, an encoded
// message, differs from what nanobot's reader needs, or returns nil.
func nanobotShapeError(data []byte) error {
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		return err
	}
	for key, want := range nanobotKeys {
		v, ok := obj[key]
		if !ok {
			return fmt.Errorf("key %q missing", key)
		}
		if got := jsonType(v); got != want && !(want == "null|string" && (got == "null" || got == "string")) {
			return fmt.Errorf("key %q is %s, want %s", key, got, want)
		}
	}
	parts, ok := obj["content"].(map[string]any)["parts"].([]any)
	if !ok {
		return fmt.Errorf("content.parts is not a list")
	}
	for i, p := range parts {
		part, ok := p.(map[string]any)
		if !ok {
			return fmt.Errorf("content.parts[%d] is not an object", i)
		}
		kind, _ := part["type"].(string)
		field := map[string]string{"text": "text", "data": "data", "file": "path"}[kind]
		if _, ok := part[field]; !ok {
			return fmt.Errorf("content.parts[%d] lacks its %q", i, field)
		}
	}
	for _, key := range []string{"callback", "task"} {
		if v, ok := obj[key]; ok && jsonType(v) != "object" {
			return fmt.Errorf("key %q is %s: leave it out or write an object", key, jsonType(v))
		}
	}
	return nil
}

func TestEncodeWritesTheTypesNanobotReads(t *testing.T) {
	for name, m := range goldenMessages(t) {
		t.Run(name, func(t *testing.T) {
			data, err := envelope.Encode(m)
			require.NoError(t, err)
			require.NoError(t, nanobotShapeError(data))
			var obj map[string]any
			require.NoError(t, json.Unmarshal(data, &obj))
			cb, hasCallback := obj["callback"]
			if m.Callback == nil {
				assert.False(t, hasCallback, "a nil callback is left out, never null")
			} else {
				assert.Equal(t, "object", jsonType(cb))
			}
			task, hasTask := obj["task"]
			if m.Task == nil {
				assert.False(t, hasTask, "a nil task is left out")
			} else {
				assert.Equal(t, "object", jsonType(task))
			}
			if m.ReplyTo == "" {
				assert.Nil(t, obj["reply_to"])
			} else {
				assert.Equal(t, m.ReplyTo, obj["reply_to"])
			}
		})
	}
}

func TestEncodeWritesEmptyPartFields(t *testing.T) {
	m := &envelope.Message{
		ID: envelope.NewID(), From: "a", To: "b", Type: envelope.TypeMessage,
		Content: envelope.Content{Parts: []envelope.Part{
			{Type: envelope.PartText}, {Type: envelope.PartData}, {Type: envelope.PartFile},
		}},
	}
	data, err := envelope.Encode(m)
	require.NoError(t, err)
	var obj struct {
		Content struct {
			Parts []map[string]any `json:"parts"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(data, &obj))
	assert.Equal(t, []map[string]any{
		{"type": "text", "text": ""},
		{"type": "data", "data": map[string]any{}},
		{"type": "file", "path": ""},
	}, obj.Content.Parts)
}

func TestEncodeDoesNotChangeItsInput(t *testing.T) {
	m := &envelope.Message{ID: "x", From: "a", To: "b", Type: envelope.TypeMessage}
	_, err := envelope.Encode(m)
	require.NoError(t, err)
	assert.Nil(t, m.Trace)
	assert.Nil(t, m.Metadata)
	assert.Nil(t, m.Content.Parts)
}
