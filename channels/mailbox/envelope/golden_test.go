package envelope_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// The switchboard_*.json golden files are what Encode writes; regenerate
// them with: go test ./channels/mailbox/envelope -run Golden -update
// The nanobot_*.json files are what nanobot's Python writes
// (json.dump(msg, f, indent=2, ensure_ascii=False), timestamps from
// datetime.isoformat()) and are never regenerated.
var update = flag.Bool("update", false, "rewrite the switchboard_*.json golden files")

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

func mustTime(t testing.TB, s string) envelope.Time {
	t.Helper()
	tm, err := envelope.ParseTime(s)
	require.NoError(t, err)
	return tm
}

func TestNanobotMessageDecodes(t *testing.T) {
	m, err := envelope.Decode(bytes.NewReader(readTestdata(t, "nanobot_message.json")), 1<<20)
	require.NoError(t, err)

	deadline := envelope.NewTime(time.Date(2026, 4, 26, 11, 0, 0, 123456000, time.UTC))
	want := &envelope.Message{
		ID:        "msg_1745659200_researcher",
		From:      "researcher",
		To:        "coder",
		Timestamp: envelope.NewTime(time.Date(2026, 4, 26, 10, 0, 0, 123456000, time.UTC)),
		Type:      envelope.TypeTask,
		TTL:       3,
		Trace:     []string{"researcher"},
		Task:      &envelope.Task{ID: "task_sort_by_mtime", State: envelope.StatePending, Deadline: &deadline},
		Content: envelope.Content{Parts: []envelope.Part{
			envelope.TextPart("帮我写排序函数: sort files by mtime"),
			envelope.DataPart(map[string]any{
				"language": "python", "max_lines": float64(40), "tests": true,
				"paths": []any{"src/", "tests/"},
			}),
			envelope.FilePart("/home/user/project/files.py"),
		}},
		Callback: &envelope.Callback{Channel: "feishu", SessionID: "feishu:user_123"},
		Metadata: map[string]any{},
	}
	assert.Equal(t, want, m)
	assert.Equal(t, "帮我写排序函数: sort files by mtime", m.Text())
	assert.True(t, m.InTrace("researcher"))
	assert.False(t, envelope.IsOwnID(m.ID), "nanobot ids are not unique, so not ours")
}

func TestNanobotMessageNullsDecode(t *testing.T) {
	m, err := envelope.DecodeBytes(readTestdata(t, "nanobot_message_nulls.json"))
	require.NoError(t, err)

	assert.Equal(t, envelope.DefaultTTL, m.TTL, "null ttl takes the default")
	assert.NotNil(t, m.Trace, "null trace is empty, not nil")
	assert.Empty(t, m.Trace)
	assert.Nil(t, m.Task)
	assert.Nil(t, m.Callback)
	assert.Empty(t, m.ReplyTo)
	assert.NotNil(t, m.Metadata, "null metadata is an empty object")
	assert.Empty(t, m.Metadata)
	assert.NotNil(t, m.Content.Parts, "missing content has no parts")
	assert.Empty(t, m.Content.Parts)
	assert.Equal(t, "", m.Text())
	assert.Equal(t, mustTime(t, "2026-04-26T10:01:00.654321Z"), m.Timestamp)
}

// goldenMessages are the messages whose encoding is pinned in testdata.
func goldenMessages(t testing.TB) map[string]*envelope.Message {
	ts := envelope.NewTime(time.Date(2026, 4, 26, 10, 0, 0, 123456789, time.UTC))
	deadline := envelope.NewTime(time.Date(2026, 4, 26, 11, 0, 0, 0, time.FixedZone("CST", 8*3600)))
	return map[string]*envelope.Message{
		"switchboard_message.json": {
			ID:        "0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
			From:      "researcher",
			To:        "coder",
			Timestamp: ts,
			Type:      envelope.TypeTask,
			TTL:       2,
			Trace:     []string{"planner", "researcher"},
			Task: &envelope.Task{ID: "task-42", State: envelope.StatePending, Deadline: &deadline,
				Budget: &envelope.Budget{Tokens: 20000, Cost: 0.5}},
			Content: envelope.Content{Parts: []envelope.Part{
				envelope.TextPart("帮我写排序函数 <sort_by_mtime> & tests"),
				envelope.DataPart(map[string]any{"max_lines": 40, "paths": []string{"src/"}}),
				envelope.FilePart("/tmp/files.py"),
			}},
			Callback:     &envelope.Callback{Channel: "feishu", ChatID: "oc_123", SessionID: "feishu:user_123"},
			ReplyTo:      "msg_1745659200_planner",
			Metadata:     map[string]any{"origin": "cli"},
			ThreadID:     "0196a1b2-0000-7000-8000-000000000001",
			Subject:      "sort-files",
			ExpectsReply: true,
			Priority:     2,
			HopCount:     1,
			Traceparent:  "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		},
		// A worker's final task_update: what the task used, beside its budget.
		"switchboard_task_update.json": {
			ID:        "0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5d",
			From:      "coder",
			To:        "researcher",
			Timestamp: ts,
			Type:      envelope.TypeTaskUpdate,
			TTL:       3,
			Trace:     []string{},
			Task: &envelope.Task{ID: "task-42", State: envelope.StateFailed,
				Reason: "budget exhausted: the task used 20420 of its 20000 tokens",
				Budget: &envelope.Budget{Tokens: 20000, Cost: 0.5}, Used: &envelope.Budget{Tokens: 20420, Cost: 0.0612}},
			Content:  envelope.Content{Parts: []envelope.Part{}},
			ReplyTo:  "0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
			ThreadID: "0196a1b2-0000-7000-8000-000000000001",
		},
		// The least a Go writer can produce: every optional field unset.
		"switchboard_message_minimal.json": {
			ID:        "0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c",
			From:      "coder",
			To:        "researcher",
			Timestamp: ts,
			Type:      envelope.TypeMessage,
		},
	}
}

func TestGoldenSwitchboardMessages(t *testing.T) {
	for name, m := range goldenMessages(t) {
		t.Run(name, func(t *testing.T) {
			got, err := envelope.Encode(m)
			require.NoError(t, err)
			path := filepath.Join("testdata", name)
			if *update {
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run with -update to create it")
			assert.Equal(t, string(want), string(got), "encoding changed; if on purpose, run with -update")

			back, err := envelope.DecodeBytes(got)
			require.NoError(t, err)
			again, err := envelope.Encode(back)
			require.NoError(t, err)
			assert.Equal(t, string(got), string(again), "decode(encode(m)) encodes the same")
		})
	}
}
