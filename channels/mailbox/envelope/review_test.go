package envelope_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// A string kept after its message is dropped must not keep the input
// alive: fsstore and natsstore index handled messages by task id (and keep
// their sender and thread), the channel keeps the routing fields of the
// last 4096 messages it received. Two thousand 1.6 KB messages of which
// only the task and thread ids are kept must leave about the ids live, not
// the inputs (3.2 MB if the ids shared their memory).
func TestKeptStringsDoNotPinTheInput(t *testing.T) {
	const n = 2000
	text := strings.Repeat("words ", 250)
	kept := make(map[string]string, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		data := fmt.Appendf(nil, `{"id":"m%d","from":"alice","to":"bob","type":"task",`+
			`"task":{"id":"task-%06d","state":"working"},"thread_id":"thread-%06d",`+
			`"content":{"parts":[{"type":"text","text":%q}]}}`, i, i, i, text)
		m, err := envelope.DecodeBytes(data)
		require.NoError(t, err)
		kept[m.TaskOf()] = m.ThreadID
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d bytes live after keeping %d task and thread ids", live, n)
	assert.Less(t, live, int64(n*400), "bytes live after keeping %d task and thread ids", n)
	runtime.KeepAlive(kept)
}

// reviewDecodeCases are more inputs at the edges (as decodeCases):
// numbers, names, strings over the size of a small message, timestamps
// nanobot and others write, and duplicate names, which encoding/json
// alone would let the last of win.
var reviewDecodeCases = []struct {
	name, input string
	err         string
}{
	{"minus zero integers", `{` + base + `,"ttl":-0,"priority":-0,"hop_count":-0}`, ""},
	{"int64 bounds", `{` + base + `,"ttl":9223372036854775807,"hop_count":0}`, ""},
	{"int64 minimum ttl", `{` + base + `,"ttl":-9223372036854775808}`, "ttl and hop_count must not be negative"},
	{"ttl over int64", `{` + base + `,"ttl":9223372036854775808}`, "field \"ttl\": want int, got number 9223372036854775808"},
	{"zero with exponent ttl", `{` + base + `,"ttl":0e0}`, "field \"ttl\": want int, got number 0e0"},
	{"float forms in metadata", `{` + base + `,"metadata":{"a":-0,"b":-0.0,"c":0.1e1,"d":1e21,` +
		`"e":1e-7,"f":100000000000000000000,"g":0e0,"h":-0E-0,"i":1e308,"j":-1e-320,` +
		`"k":123456789012345678901234567890e-30}}`, ""},
	{"nested metadata", `{` + base + `,"metadata":{"h":[{"x":[[]]},{}],"i":{"j":{"k":null}}}}`, ""},
	{"duplicate metadata names of other shapes", `{` + base + `,"metadata":{"a":{"b":1},"a":{"c":2},"l":[1],"l":null}}`, "key \"metadata.a\" given twice"},
	// Both names read as "\ufffd", as encoding/json replaces malformed UTF-8.
	{"malformed UTF-8 metadata names", "{" + base + ",\"metadata\":{\"\xff\":1,\"\xfe\":2,\"\xed\xa0\x80\":3}}", "key \"metadata.\ufffd\" given twice"},
	{"DEL in an unknown name", "{" + base + ",\"k\x7f\":1}", ""},
	{"DEL in a value", "{" + base + ",\"subject\":\"\x7f\"}", ""},
	{"empty names", `{` + base + `,"":1,"":{"id":"x"}}`, "key \"\" given twice"},
	{"escaped NUL id", `{"id":"\u0000","from":"a","to":"b","type":"message"}`, ""},
	{"escaped type", `{"id":"m","from":"a","to":"b","type":"messag\u0065"}`, ""},
	{"type with a known prefix", `{"id":"m","from":"a","to":"b","type":"task_update_x"}`, "type \"task_update_x\": want message, task or task_update"},
	{"state with a known prefix", `{"id":"m","from":"a","to":"b","type":"task","task":{"id":"t","state":"working2"}}`, "task state \"working2\" unknown"},
	{"part type with a known prefix", `{` + base + `,"content":{"parts":[{"type":"texts"}]}}`, "content.parts[0]: type \"texts\": want text, data or file"},
	{"empty blocks", `{` + base + `,"callback":{},"content":{"parts":[{}]}}`, "content.parts[0]: type \"\": want text, data or file"},
	{"upper-case name in callback", `{` + base + `,"callback":{"channel":"x","CHAT_ID":"y"}}`, ""},
	{"long subject", `{` + base + `,"subject":"` + strings.Repeat("x", 3000) + `"}`, ""},
	{"long malformed UTF-8", "{" + base + ",\"subject\":\"" + strings.Repeat("é", 1500) + "\xff\"}", ""},
	{"long surrogate pair", `{` + base + `,"subject":"` + strings.Repeat("x", 3000) + `\ud83d\ude00"}`, ""},
	{"long metadata name", `{` + base + `,"metadata":{"` + strings.Repeat("k", 3000) + `":"\udbff\udfff"}}`, ""},
	{"offset timestamps", `{` + base + `,"timestamp":"2026-04-26T10:00:00+05:30","reply_by":"2026-04-26 10:00:00.123456789"}`, ""},
	{"year 1 from year 0", `{` + base + `,"timestamp":"0000-12-31T23:00:00-01:00"}`, ""},
	{"year 0 from year 1", `{` + base + `,"timestamp":"0001-01-01T00:30:00+01:00"}`, "timestamp \"0001-01-01T00:30:00+01:00\": year 0 in UTC is out of range 1 to 9999"},
	{"fraction past microseconds at year end", `{` + base + `,"timestamp":"9999-12-31T23:59:59.9999999Z"}`, ""},
	{"comma fraction", `{` + base + `,"timestamp":"2026-04-26T10:00:00,5Z"}`, ""},
	{"offset with seconds", `{` + base + `,"timestamp":"2026-04-26T10:00:00+05:30:15"}`, "want an RFC 3339 timestamp, got \"2026-04-26T10:00:00+05:30:15\""},
	{"lower-case separators", `{` + base + `,"timestamp":"2026-04-26t10:00:00z"}`, "want an RFC 3339 timestamp, got \"2026-04-26t10:00:00z\""},
	{"hour 24", `{` + base + `,"timestamp":"2026-04-26T24:00:00Z"}`, "want an RFC 3339 timestamp, got \"2026-04-26T24:00:00Z\""},
	{"space before timestamp", `{` + base + `,"timestamp":" 2026-04-26T10:00:00Z"}`, "want an RFC 3339 timestamp, got \" 2026-04-26T10:00:00Z\""},
}

func TestReviewDecodeCases(t *testing.T) {
	for _, tt := range reviewDecodeCases {
		t.Run(tt.name, func(t *testing.T) { decodesAs(t, []byte(tt.input), tt.err) })
	}
}

// The enumerated fields decode to the package's constants.
func TestDecodeKnownWords(t *testing.T) {
	m, err := envelope.DecodeBytes([]byte(`{"id":"m","from":"a","to":"b","type":"task_update",` +
		`"task":{"id":"t","state":"canceled"},"content":{"parts":[{"type":"file","path":"p"}]}}`))
	require.NoError(t, err)
	assert.Equal(t, envelope.TypeTaskUpdate, m.Type)
	assert.Equal(t, envelope.StateCanceled, m.Task.State)
	assert.Equal(t, envelope.PartFile, m.Content.Parts[0].Type)
}

type pointerMarshaler struct{ A string }

func (p *pointerMarshaler) MarshalJSON() ([]byte, error) { return []byte(`"pointer"`), nil }

type spacedMarshaler struct{}

func (spacedMarshaler) MarshalJSON() ([]byte, error) {
	return []byte("{ \"b\" : \"<\u2028>\" , \"a\":[ 1 ] }"), nil
}

// Metadata values of Go types that decoding never gives are written in
// both encodings alike (checkEncode), or refused by both.
func TestReviewEncodeMetadataTypes(t *testing.T) {
	var nilTime *envelope.Time
	values := map[string]any{
		"zero Time": envelope.Time{}, "nil *Time": nilTime, "nil RawMessage": json.RawMessage(nil),
		"pointer marshaler as value": pointerMarshaler{"x"}, "pointer marshaler": &pointerMarshaler{},
		"spaced marshaler": spacedMarshaler{}, "error": errors.New("e"), "text marshaler": net.ParseIP("::1"),
		"zero time.Time": time.Time{}, "float32 minus zero": float32(math.Copysign(0, -1)),
		"float under 1e21": 999999999999999999999.0, "array": [2]int{1, 2}, "max uint64": uint64(math.MaxUint64),
		"int keys": map[int]string{2: "b", 10: "a"}, "list of nil strings": []any{[]string(nil)},
		"zero Part": envelope.Part{}, "empty message": &envelope.Message{},
		"escaped names": map[string]any{"\u2028<": []any{map[string]any{}}},
	}
	for name, v := range values {
		t.Run(name, func(t *testing.T) {
			m := fullMessage()
			m.Metadata = map[string]any{"v": v}
			assert.True(t, checkEncode(t, m), "encoded")
		})
	}
	for name, v := range map[string]any{"empty RawMessage": json.RawMessage(""), "NaN in a struct": struct{ X any }{math.NaN()}} {
		t.Run(name, func(t *testing.T) {
			m := fullMessage()
			m.Metadata = map[string]any{"v": v}
			assert.False(t, checkEncode(t, m), "encoded")
		})
	}
}

// Timestamps at the edges of the four-digit years and of the zone offsets.
func TestReviewEncodeTimes(t *testing.T) {
	for _, tm := range []time.Time{
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", -3600)),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600)),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.FixedZone("", 3600)),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Nanosecond),
		time.Unix(math.MaxInt64/4, 0),
	} {
		t.Run(tm.String(), func(t *testing.T) {
			m := fullMessage()
			m.Timestamp = envelope.NewTime(tm)
			assert.True(t, checkEncode(t, m), "encoded")
		})
	}
}
