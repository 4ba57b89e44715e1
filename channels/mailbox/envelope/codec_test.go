package envelope_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// validWire returns a valid message as a JSON object to mutate.
func validWire() map[string]any {
	return map[string]any{
		"id": "m1", "from": "researcher", "to": "coder",
		"timestamp": "2026-04-26T10:00:00+00:00", "type": "task", "ttl": 3,
		"trace":   []any{"researcher"},
		"task":    map[string]any{"id": "t1", "state": "pending"},
		"content": map[string]any{"parts": []any{map[string]any{"type": "text", "text": "hi"}}},
	}
}

func wireWith(t testing.TB, change func(map[string]any)) string {
	t.Helper()
	w := validWire()
	change(w)
	data, err := json.Marshal(w)
	require.NoError(t, err)
	return string(data)
}

func TestDecodeValidBaseline(t *testing.T) {
	_, err := envelope.DecodeBytes([]byte(wireWith(t, func(map[string]any) {})))
	require.NoError(t, err)
}

func TestDecodeMalformed(t *testing.T) {
	valid := wireWith(t, func(map[string]any) {})
	set := func(key string, v any) string {
		return wireWith(t, func(w map[string]any) { w[key] = v })
	}
	del := func(key string) string {
		return wireWith(t, func(w map[string]any) { delete(w, key) })
	}
	tests := []struct {
		name, input, wantMsg string
	}{
		{"bad JSON reports the offset", `{"id": "m1",, "from": "a"}`, "invalid JSON at byte 13"},
		{"truncated", valid[:len(valid)/2], "truncated JSON"},
		{"empty file", "", "empty file"},
		{"only white space", " \n\t", "empty file"},
		{"top-level array", `[]`, "want a JSON object, got array"},
		{"top-level string", `"hello"`, "want a JSON object, got string"},
		{"top-level null", `null`, "missing id"},
		{"ttl a string", set("ttl", "3"), `field "ttl"`},
		{"ttl a fraction", set("ttl", 1.5), `field "ttl"`},
		{"trace a string", set("trace", "researcher"), `field "trace"`},
		{"trace of numbers", set("trace", []any{1}), `field "trace`},
		{"parts an object", set("content", map[string]any{"parts": map[string]any{}}), `field "content.parts"`},
		{"metadata a list", set("metadata", []any{}), `field "metadata"`},
		{"timestamp a number", set("timestamp", 1745659200), "timestamp"},
		{"timestamp not a date", set("timestamp", "yesterday"), "RFC 3339"},
		{"task a string", set("task", "t1"), `field "task"`},
		{"callback a list", set("callback", []any{}), `field "callback"`},
		{"reply_to a number", set("reply_to", 7), `field "reply_to"`},
		{"priority a string", set("priority", "high"), `field "priority"`},
		{"missing id", del("id"), "missing id"},
		{"empty id", set("id", ""), "missing id"},
		{"null id", set("id", nil), "missing id"},
		{"missing from", del("from"), "from: invalid agent id: empty"},
		{"missing to", del("to"), "to: invalid agent id: empty"},
		{"missing type", del("type"), `type ""`},
		{"bad type", set("type", "email"), `type "email"`},
		{"task type without task", set("task", nil), "type task without a task block"},
		{"task_update without task", wireWith(t, func(w map[string]any) {
			w["type"], w["task"] = "task_update", nil
		}), "type task_update without a task block"},
		{"task without id", set("task", map[string]any{"state": "pending"}), "task without an id"},
		{"unknown task state", set("task", map[string]any{"id": "t1", "state": "done"}), `task state "done" unknown`},
		{"bad task deadline", set("task", map[string]any{"id": "t1", "deadline": "soon"}), "RFC 3339"},
		{"bad part type", set("content", map[string]any{"parts": []any{map[string]any{"type": "image"}}}),
			`content.parts[0]: type "image"`},
		{"part without type", set("content", map[string]any{"parts": []any{map[string]any{"text": "x"}}}),
			`content.parts[0]: type ""`},
		{"null part", set("content", map[string]any{"parts": []any{nil}}), `content.parts[0]: type ""`},
		{"priority above 3", set("priority", 4), "priority 4"},
		{"priority below 0", set("priority", -1), "priority -1"},
		{"negative ttl", set("ttl", -1), "ttl and hop_count must not be negative"},
		{"negative hop_count", set("hop_count", -2), "ttl and hop_count must not be negative"},
		{"traversal in from", set("from", "../../etc"), "from: invalid agent id"},
		{"traversal in to", set("to", ".."), "to: invalid agent id"},
		{"slash in to", set("to", "coder/inbox"), "to: invalid agent id"},
		{"absolute path in from", set("from", "/etc/passwd"), "from: invalid agent id"},
		{"NUL in to", set("to", "cod\x00er"), "to: invalid agent id"},
		{"reserved name in to", set("to", "_registry.json"), "to: invalid agent id"},
		{"over-long from", set("from", strings.Repeat("a", envelope.MaxAgentIDLen+1)), "from: invalid agent id"},
		{"second object after", valid + ` {}`, "data after the JSON object"},
		{"stray brace after", valid + `}`, "data after the JSON object"},
		{"stray bracket after", valid + "\n]", "data after the JSON object"},
		{"garbage after", valid + ` x`, "data after the JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := envelope.DecodeBytes([]byte(tt.input))
			require.Error(t, err)
			assert.Nil(t, m)
			assert.ErrorIs(t, err, envelope.ErrMalformed)
			assert.NotErrorIs(t, err, envelope.ErrTooLarge)
			assert.Contains(t, err.Error(), tt.wantMsg)

			// Decode (the io.Reader form) says the same.
			_, err2 := envelope.Decode(strings.NewReader(tt.input), 1<<20)
			assert.Equal(t, err.Error(), err2.Error())
		})
	}
}

func TestDecodeAcceptsTrailingWhiteSpace(t *testing.T) {
	_, err := envelope.DecodeBytes([]byte(wireWith(t, func(map[string]any) {}) + "\n \r\n\t"))
	require.NoError(t, err)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestDecodeTooLargeBeforeDecoding(t *testing.T) {
	const limit = 1024
	tests := []struct{ name, input string }{
		{"valid message padded", wireWith(t, func(w map[string]any) { w["metadata"] = map[string]any{"pad": strings.Repeat("x", 2*limit)} })},
		// Invalid JSON too: the size is checked first, so it is too
		// large rather than malformed.
		{"garbage", strings.Repeat("{", 10*limit)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &countingReader{r: strings.NewReader(tt.input)}
			_, err := envelope.Decode(r, limit)
			assert.ErrorIs(t, err, envelope.ErrTooLarge)
			assert.NotErrorIs(t, err, envelope.ErrMalformed)
			assert.LessOrEqual(t, r.n, int64(limit+1), "read past the cap")
		})
	}

	exact := wireWith(t, func(map[string]any) {})
	_, err := envelope.Decode(strings.NewReader(exact), int64(len(exact)))
	assert.NoError(t, err, "a message of exactly the cap is accepted")
	big := strings.Repeat(" ", 2<<20) + exact
	_, err = envelope.Decode(strings.NewReader(big), 0)
	assert.NoError(t, err, "0 means no cap")
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestDecodeReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	_, err := envelope.Decode(failingReader{boom}, 1024)
	assert.ErrorIs(t, err, boom)
	assert.NotErrorIs(t, err, envelope.ErrMalformed, "an I/O error says nothing about the message")
}

func TestDecodeDefaults(t *testing.T) {
	m, err := envelope.DecodeBytes([]byte(`{"id":"m","from":"a","to":"b","type":"message"}`))
	require.NoError(t, err)
	assert.Equal(t, envelope.DefaultTTL, m.TTL)
	assert.Equal(t, []string{}, m.Trace)
	assert.Equal(t, []envelope.Part{}, m.Content.Parts)
	assert.Equal(t, map[string]any{}, m.Metadata)
	assert.True(t, m.Timestamp.IsZero())

	m, err = envelope.DecodeBytes([]byte(`{"id":"m","from":"a","to":"b","type":"message","ttl":0,
		"content":{"parts":[{"type":"data","data":null}]}}`))
	require.NoError(t, err)
	assert.Equal(t, 0, m.TTL, "an explicit 0 is kept")
	assert.Equal(t, map[string]any{}, m.Content.Parts[0].Data, "a data part's null data is {}")
}

func TestValidateDirect(t *testing.T) {
	ok := &envelope.Message{ID: "m", From: "a", To: "b", Type: envelope.TypeMessage}
	require.NoError(t, envelope.Validate(ok))
	bad := *ok
	bad.Priority = 9
	assert.ErrorIs(t, envelope.Validate(&bad), envelope.ErrMalformed)
}

func TestEncodeDecodeRoundTripGolden(t *testing.T) {
	for _, name := range []string{"nanobot_message.json", "nanobot_message_nulls.json"} {
		t.Run(name, func(t *testing.T) {
			m, err := envelope.DecodeBytes(readTestdata(t, name))
			require.NoError(t, err)
			out, err := envelope.Encode(m)
			require.NoError(t, err)
			back, err := envelope.Decode(bytes.NewReader(out), 0)
			require.NoError(t, err)
			assert.Equal(t, m, back)
		})
	}
}
