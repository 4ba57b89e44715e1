package envelope_test

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// checkEncode encodes m both ways and checks that they agree: both fail
// with the same error, or EncodeCompact writes valid JSON on one line
// that is what Encode writes without the indentation, and which, when it
// decodes, gives a message that comes back the same through the wire. It
// reports whether m encoded.
func checkEncode(t testing.TB, m *envelope.Message) (ok bool) {
	t.Helper()
	compact, cerr := envelope.EncodeCompact(m)
	indented, ierr := envelope.Encode(m)
	if (cerr == nil) != (ierr == nil) || (cerr != nil && cerr.Error() != ierr.Error()) {
		t.Fatalf("EncodeCompact: %v; Encode: %v", cerr, ierr)
	}
	if cerr != nil {
		return false
	}
	if !json.Valid(compact) || bytes.ContainsRune(compact, '\n') {
		t.Fatalf("EncodeCompact wrote no JSON line:\n%s", compact)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, indented); err != nil || want.String() != string(compact) {
		t.Fatalf("Encode and EncodeCompact differ (%v):\n%s\n%s", err, indented, compact)
	}
	if back, err := envelope.DecodeBytes(compact); err == nil {
		again, err := envelope.EncodeCompact(back)
		if err != nil {
			t.Fatalf("EncodeCompact of a decoded message: %v", err)
		}
		if back2, err := envelope.DecodeBytes(again); err != nil || !reflect.DeepEqual(back, back2) {
			t.Fatalf("a decoded message does not come back (%v):\n%s", err, again)
		}
	}
	return true
}

func TestEncodeCorpus(t *testing.T) {
	for name, m := range corpusMessages() {
		t.Run(name, func(t *testing.T) { assert.True(t, checkEncode(t, m), "encoded") })
	}
	for _, name := range goldenFiles {
		t.Run(name, func(t *testing.T) {
			m, err := envelope.DecodeBytes(readTestdata(t, name))
			assert.NoError(t, err)
			assert.True(t, checkEncode(t, m), "encoded")
		})
	}
}

// allBytes is every ASCII byte, some malformed UTF-8 and the characters
// encoding/json escapes although they are valid.
func allBytes() string {
	var b strings.Builder
	for c := range 0x80 {
		b.WriteByte(byte(c))
	}
	b.WriteString("\xff\xfe\xc0\x80\xed\xa0\x80\xe2\x82 \u2028\u2029 é 😀 \xf0\x9f")
	return b.String()
}

func TestEncodeEdgeCases(t *testing.T) {
	self := map[string]any{}
	self["me"] = self
	deep := any("bottom")
	for range 100 {
		deep = []any{deep}
	}
	zero := envelope.Time{}
	at := func(tm time.Time) *envelope.Time { v := envelope.NewTime(tm); return &v }
	floats := []any{0.0, math.Copysign(0, -1), 1e-7, 1e-6, 123.456, 1e20, 1e21, -1e21, 5e-324,
		math.MaxFloat64, 0.1 + 0.2, 1e-10, float32(0.1), float32(1e21)}
	tests := []struct {
		name   string
		change func(*envelope.Message)
		ok     bool // whether it encodes
	}{
		{"every byte in every string", func(m *envelope.Message) {
			s := allBytes()
			m.ID, m.From, m.To, m.ReplyTo, m.ThreadID, m.Subject, m.TaskID = s, s, s, s, s, s, s
			m.Type, m.Trace = envelope.Type(s), []string{s, ""}
			m.Task = &envelope.Task{ID: s, State: envelope.TaskState(s), Reason: s}
			m.Callback = &envelope.Callback{Channel: s, ChatID: s, SessionID: s}
			m.Content.Parts = []envelope.Part{{Type: envelope.PartType(s), Text: s, Path: s, Data: map[string]any{s: s}}}
			m.Metadata = map[string]any{s: s, "": ""}
		}, true},
		{"floats", func(m *envelope.Message) { m.Metadata = map[string]any{"f": floats} }, true},
		{"Go types", func(m *envelope.Message) {
			m.Metadata = map[string]any{"int": -7, "int64": int64(math.MinInt64), "strings": []string{"a", "<"},
				"nil strings": []string(nil), "nil map": map[string]any(nil), "nil list": []any(nil),
				"int32": int32(5), "uint": uint(9), "map of strings": map[string]string{"b": "1", "a": "&"},
				"struct": envelope.Task{ID: "<t>"}, "time": time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC),
				"raw": json.RawMessage(` {"z": 1, "a": "<"} `), "number": json.Number("12.50"),
				"pointer": &envelope.Callback{Channel: "c"}, "type": envelope.TypeTask, "bytes": []byte("hi")}
		}, true},
		{"many metadata keys", func(m *envelope.Message) {
			m.Metadata = map[string]any{}
			for i := range 40 {
				m.Metadata[strings.Repeat("k", 40-i)] = i
			}
		}, true},
		{"times", func(m *envelope.Message) {
			m.Timestamp = envelope.NewTime(time.Date(2026, 4, 26, 18, 0, 0, 123456789, time.FixedZone("CST", 8*3600)))
			m.Task = &envelope.Task{ID: "t", Deadline: &zero}
			m.ReplyBy = at(time.Date(0, 1, 1, 0, 0, 0, 1000, time.UTC))
		}, true},
		{"year 10000", func(m *envelope.Message) {
			m.Timestamp = envelope.NewTime(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
		}, true},
		{"negative year", func(m *envelope.Message) { m.ReplyBy = at(time.Date(-1, 12, 31, 23, 59, 59, 999999999, time.UTC)) }, true},
		{"zero reply_by", func(m *envelope.Message) { m.ReplyBy = &zero }, true},
		{"odd parts", func(m *envelope.Message) {
			m.Content.Parts = []envelope.Part{{}, {Type: envelope.PartText, Data: map[string]any{}, Path: "p"},
				{Type: envelope.PartData}, {Type: envelope.PartFile, Text: "t"}, {Type: "image", Text: "x"}}
		}, true},
		{"negative numbers", func(m *envelope.Message) { m.TTL, m.Priority, m.HopCount = -1, -2, math.MinInt }, true},
		{"empty callback and task", func(m *envelope.Message) {
			m.Task, m.Callback = &envelope.Task{}, &envelope.Callback{}
		}, true},
		{"budgets", func(m *envelope.Message) {
			m.Task.Budget = &envelope.Budget{Tokens: math.MinInt64, Cost: -1e21}
		}, true},
		{"empty budget", func(m *envelope.Message) { m.Task.Budget = &envelope.Budget{} }, true},
		{"NaN", func(m *envelope.Message) { m.Metadata = map[string]any{"n": math.NaN()} }, false},
		{"NaN cost", func(m *envelope.Message) { m.Task.Budget = &envelope.Budget{Cost: math.NaN()} }, false},
		{"infinity in data", func(m *envelope.Message) {
			m.Content.Parts = []envelope.Part{envelope.DataPart(map[string]any{"i": math.Inf(1)})}
		}, false},
		{"channel", func(m *envelope.Message) { m.Metadata = map[string]any{"c": make(chan int)} }, false},
		{"float32 NaN", func(m *envelope.Message) { m.Metadata = map[string]any{"f": float32(math.NaN())} }, false},
		{"cycle", func(m *envelope.Message) { m.Metadata = self }, false},
		{"deep", func(m *envelope.Message) { m.Metadata = map[string]any{"d": deep} }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := fullMessage()
			tt.change(m)
			assert.Equal(t, tt.ok, checkEncode(t, m), "encoded")
		})
	}
}

// FuzzEncode checks that the two encodings agree (checkEncode) for
// messages holding arbitrary strings, numbers and times:
//
//	go test -run='^$' -fuzz=FuzzEncode -fuzztime=60s ./channels/mailbox/envelope
func FuzzEncode(f *testing.F) {
	f.Add("hello", "<&>", int64(1745659200123456789), 1.5, int64(3))
	f.Add(allBytes(), "\u2028", int64(-62135596800000000), math.Inf(-1), int64(-1))
	f.Add("", "", int64(0), 1e21, int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, s, u string, nanos int64, x float64, n int64) {
		m := fullMessage()
		m.ID, m.From, m.Subject, m.ReplyTo, m.Trace = s, u, s+u, u, []string{s, u}
		m.TTL, m.Priority, m.HopCount = int(n), int(n>>8), int(n>>16)
		m.Timestamp = envelope.NewTime(time.Unix(0, nanos).In(time.FixedZone("", int(n%86400))))
		m.Task.Reason, m.Callback.ChatID = u, s
		m.Content.Parts = append(m.Content.Parts, envelope.TextPart(s),
			envelope.DataPart(map[string]any{s: x, u: []any{s, x, float64(n), n, nil}}))
		m.Metadata = map[string]any{s: u, u: map[string]any{s: x}, "n": n}
		checkEncode(t, m)
	})
}

// fullMessage sets every field (and the parts every Part field), so that
// the corpus and the edge cases above cover a field added to Message.
func TestFullMessageSetsEveryField(t *testing.T) {
	m := fullMessage()
	for _, v := range []any{*m, *m.Task, *m.Task.Budget, *m.Callback} {
		rv := reflect.ValueOf(v)
		for i := range rv.NumField() {
			assert.False(t, rv.Field(i).IsZero(), "%T.%s is not set", v, rv.Type().Field(i).Name)
		}
	}
	var union envelope.Part
	for _, p := range m.Content.Parts {
		union.Type += p.Type
		union.Text += p.Text
		union.Path += p.Path
		if p.Data != nil {
			union.Data = p.Data
		}
	}
	rv := reflect.ValueOf(union)
	for i := range rv.NumField() {
		assert.False(t, rv.Field(i).IsZero(), "no part sets Part.%s", rv.Type().Field(i).Name)
	}
}
