package envelope_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// goldenFiles are the message files in testdata.
var goldenFiles = []string{"nanobot_message.json", "nanobot_message_nulls.json",
	"switchboard_message.json", "switchboard_message_minimal.json"}

// fullMessage is a message with every field set, in the shapes the
// channel writes: a task with deadline and reason, a callback, all three
// part kinds, metadata, and all of switchboard's additions.
func fullMessage() *envelope.Message {
	ts := envelope.NewTime(time.Date(2026, 4, 26, 10, 0, 0, 123456000, time.UTC))
	due := envelope.NewTime(time.Date(2026, 4, 26, 11, 30, 0, 0, time.UTC))
	return &envelope.Message{
		ID: "0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", From: "researcher", To: "coder",
		Timestamp: ts, Type: envelope.TypeTask, TTL: 2, Trace: []string{"planner", "researcher"},
		Task: &envelope.Task{ID: "task-42", State: envelope.StateFailed, Deadline: &due, Reason: "too \"big\" <sorry>",
			Budget: &envelope.Budget{Tokens: 12000, Cost: 0.25}, Used: &envelope.Budget{Tokens: 12345, Cost: 0.0625}},
		Content: envelope.Content{Parts: []envelope.Part{
			envelope.TextPart("帮我写排序函数 <sort_by_mtime> & tests\n\tline two \u2028 😀"),
			envelope.DataPart(map[string]any{"max_lines": float64(40), "paths": []any{"src/", nil, true},
				"nested": map[string]any{"x": -1.5e-7, "y": map[string]any{}}, "empty": []any{}}),
			envelope.FilePart("/tmp/files.py"),
		}},
		Callback: &envelope.Callback{Channel: "feishu", ChatID: "oc_123", SessionID: "feishu:user_123"},
		ReplyTo:  "msg_1745659200_planner",
		Metadata: map[string]any{"origin": "cli", "n": float64(3), "ok": false, "none": nil},
		ThreadID: "0196a1b2-0000-7000-8000-000000000001", Subject: "sort-files",
		ExpectsReply: true, Priority: 3, HopCount: 4, TaskID: "task-41", ReplyBy: &due,
		Traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		Tracestate:  "vendor=opaque \"value\"",
		TaskPath:    []string{"planner:0123456789abcdef", "researcher:fedcba9876543210"},
		Signature: &envelope.Signature{Alg: envelope.SignatureAlg, Key: "UDXU4RCSJNZOIQHZNWXHXORDPRTGNJAHAHFRGZNEEJCPQTT2M7NLCNF4",
			Sig: "c2lnbmF0dXJlIG9mIHNpeHR5LWZvdXIgYnl0ZXMsIHBhZGRlZCB3aXRoIG5vdGhpbmcgYnV0IHplcm9zLi4uLg"},
	}
}

// optionalFields sets one optional field each (on a plain message).
var optionalFields = map[string]func(m, full *envelope.Message){
	"task":      func(m, f *envelope.Message) { m.Type, m.Task = envelope.TypeTask, f.Task },
	"task_bare": func(m, f *envelope.Message) { m.Type, m.Task = envelope.TypeTaskUpdate, &envelope.Task{ID: "t"} },
	"budget_tokens": func(m, f *envelope.Message) {
		m.Type, m.Task = envelope.TypeTask, &envelope.Task{ID: "t", Budget: &envelope.Budget{Tokens: 500}}
	},
	"budget_cost": func(m, f *envelope.Message) {
		m.Type, m.Task = envelope.TypeTask, &envelope.Task{ID: "t", Budget: &envelope.Budget{Cost: 1e-7}}
	},
	"used": func(m, f *envelope.Message) {
		m.Type, m.Task = envelope.TypeTaskUpdate, &envelope.Task{ID: "t", State: envelope.StateCompleted, Used: &envelope.Budget{Tokens: 42}}
	},
	"callback":      func(m, f *envelope.Message) { m.Callback = f.Callback },
	"signature":     func(m, f *envelope.Message) { m.Signature = f.Signature },
	"callback_bare": func(m, f *envelope.Message) { m.Callback = &envelope.Callback{Channel: "cli"} },
	"parts":         func(m, f *envelope.Message) { m.Content = f.Content },
	"text":          func(m, f *envelope.Message) { m.Content.Parts = f.Content.Parts[:1] },
	"reply_to":      func(m, f *envelope.Message) { m.ReplyTo = f.ReplyTo },
	"metadata":      func(m, f *envelope.Message) { m.Metadata = f.Metadata },
	"trace":         func(m, f *envelope.Message) { m.Trace = f.Trace },
	"thread_id":     func(m, f *envelope.Message) { m.ThreadID = f.ThreadID },
	"subject":       func(m, f *envelope.Message) { m.Subject = f.Subject },
	"expects_reply": func(m, f *envelope.Message) { m.ExpectsReply = true },
	"priority":      func(m, f *envelope.Message) { m.Priority = f.Priority },
	"hop_count":     func(m, f *envelope.Message) { m.HopCount = f.HopCount },
	"task_id":       func(m, f *envelope.Message) { m.TaskID = f.TaskID },
	"reply_by":      func(m, f *envelope.Message) { m.ReplyBy = f.ReplyBy },
	"traceparent":   func(m, f *envelope.Message) { m.Traceparent = f.Traceparent },
	"tracestate":    func(m, f *envelope.Message) { m.Tracestate = f.Tracestate },
	"task_path":     func(m, f *envelope.Message) { m.TaskPath = f.TaskPath },
	"no_timestamp":  func(m, f *envelope.Message) { m.Timestamp = envelope.Time{} },
}

// corpusMessages are the plain message, each optional field alone, all of
// them, and all but each one.
func corpusMessages() map[string]*envelope.Message {
	full := fullMessage()
	plain := func() *envelope.Message {
		return &envelope.Message{ID: "0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a60", From: "alice", To: "bob",
			Timestamp: full.Timestamp, Type: envelope.TypeMessage, TTL: 3}
	}
	big := fullMessage() // a long text, over 2 KB
	big.Content.Parts[0].Text = strings.Repeat("long text é <", 300)
	out := map[string]*envelope.Message{"plain": plain(), "full": full, "big": big}
	for name, set := range optionalFields {
		m := plain()
		set(m, full)
		out["only_"+name] = m
		all := plain()
		for other, set := range optionalFields {
			if other != name && !strings.HasSuffix(other, "_bare") && other != "text" {
				set(all, full)
			}
		}
		out["all_but_"+name] = all
	}
	return out
}

// nanobotStyle writes v as nanobot's Python does: indent 2, non-ASCII and
// '<', '>', '&' unescaped.
func nanobotStyle(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(v))
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// corpusInputs are the golden files and every corpus message written by
// Encode, EncodeCompact and in nanobot's style (members sorted by name),
// each also with every member in turn set to null, left out, duplicated,
// spelt in upper case, and with an unknown member added.
func corpusInputs(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for _, name := range goldenFiles {
		out[name] = readTestdata(t, name)
	}
	for name, m := range corpusMessages() {
		indented, err := envelope.Encode(m)
		require.NoError(t, err)
		compact, err := envelope.EncodeCompact(m)
		require.NoError(t, err)
		out[name+"/indented"] = indented
		out[name+"/compact"] = compact
		var obj map[string]any
		require.NoError(t, json.Unmarshal(compact, &obj))
		out[name+"/nanobot"] = nanobotStyle(t, obj)
		if name != "full" {
			continue
		}
		for key, v := range obj {
			with := func(change func(map[string]any)) []byte {
				c := make(map[string]any, len(obj))
				for k, v := range obj {
					c[k] = v
				}
				change(c)
				return nanobotStyle(t, c)
			}
			out[name+"/null_"+key] = with(func(c map[string]any) { c[key] = nil })
			out[name+"/without_"+key] = with(func(c map[string]any) { delete(c, key) })
			out[name+"/upper_"+key] = with(func(c map[string]any) { delete(c, key); c[strings.ToUpper(key)] = v })
			raw, err := json.Marshal(v)
			require.NoError(t, err)
			out[name+"/twice_"+key] = fmt.Appendf(nil, "{%q:%s,%s", key, raw, compact[1:])
		}
		out[name+"/unknown"] = fmt.Appendf(nil, `{"zz_new":{"a":[1,"b",null]},%s`, compact[1:])
	}
	return out
}
