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

// reviewDecodeCases are inputs at the edges the fast decoder must agree on
// with encoding/json: numbers, names, strings over the size of a small
// message, timestamps nanobot and others write, and duplicate names where
// encoding/json lets the last one win.
var reviewDecodeCases = []struct {
	name, input string
	fast        bool
}{
	{"minus zero integers", `{` + base + `,"ttl":-0,"priority":-0,"hop_count":-0}`, true},
	{"int64 bounds", `{` + base + `,"ttl":9223372036854775807,"hop_count":0}`, true},
	{"int64 minimum ttl", `{` + base + `,"ttl":-9223372036854775808}`, true},
	{"ttl over int64", `{` + base + `,"ttl":9223372036854775808}`, false},
	{"zero with exponent ttl", `{` + base + `,"ttl":0e0}`, false},
	{"float forms in metadata", `{` + base + `,"metadata":{"a":-0,"b":-0.0,"c":0.1e1,"d":1e21,` +
		`"e":1e-7,"f":100000000000000000000,"g":0e0,"h":-0E-0,"i":1e308,"j":-1e-320,` +
		`"k":123456789012345678901234567890e-30}}`, true},
	{"nested metadata", `{` + base + `,"metadata":{"h":[{"x":[[]]},{}],"i":{"j":{"k":null}}}}`, true},
	{"duplicate metadata names of other shapes", `{` + base + `,"metadata":{"a":{"b":1},"a":{"c":2},"l":[1],"l":null}}`, true},
	{"malformed UTF-8 metadata names", "{" + base + ",\"metadata\":{\"\xff\":1,\"\xfe\":2,\"\xed\xa0\x80\":3}}", true},
	{"DEL in an unknown name", "{" + base + ",\"k\x7f\":1}", true},
	{"DEL in a value", "{" + base + ",\"subject\":\"\x7f\"}", true},
	{"empty names", `{` + base + `,"":1,"":{"id":"x"}}`, true},
	{"escaped NUL id", `{"id":"\u0000","from":"a","to":"b","type":"message"}`, true},
	{"escaped type", `{"id":"m","from":"a","to":"b","type":"messag\u0065"}`, true},
	{"type with a known prefix", `{"id":"m","from":"a","to":"b","type":"task_update_x"}`, true},
	{"state with a known prefix", `{"id":"m","from":"a","to":"b","type":"task","task":{"id":"t","state":"working2"}}`, true},
	{"part type with a known prefix", `{` + base + `,"content":{"parts":[{"type":"texts"}]}}`, true},
	{"empty blocks", `{` + base + `,"callback":{},"content":{"parts":[{}]}}`, true},
	{"upper-case name in callback", `{` + base + `,"callback":{"channel":"x","CHAT_ID":"y"}}`, false},
	{"long subject", `{` + base + `,"subject":"` + strings.Repeat("x", 3000) + `"}`, true},
	{"long malformed UTF-8", "{" + base + ",\"subject\":\"" + strings.Repeat("é", 1500) + "\xff\"}", true},
	{"long surrogate pair", `{` + base + `,"subject":"` + strings.Repeat("x", 3000) + `\ud83d\ude00"}`, true},
	{"long metadata name", `{` + base + `,"metadata":{"` + strings.Repeat("k", 3000) + `":"\udbff\udfff"}}`, true},
	{"offset timestamps", `{` + base + `,"timestamp":"2026-04-26T10:00:00+05:30","reply_by":"2026-04-26 10:00:00.123456789"}`, true},
	{"year 1 from year 0", `{` + base + `,"timestamp":"0000-12-31T23:00:00-01:00"}`, true},
	{"year 0 from year 1", `{` + base + `,"timestamp":"0001-01-01T00:30:00+01:00"}`, false},
	{"fraction past microseconds at year end", `{` + base + `,"timestamp":"9999-12-31T23:59:59.9999999Z"}`, true},
	{"comma fraction", `{` + base + `,"timestamp":"2026-04-26T10:00:00,5Z"}`, true},
	{"offset with seconds", `{` + base + `,"timestamp":"2026-04-26T10:00:00+05:30:15"}`, false},
	{"lower-case separators", `{` + base + `,"timestamp":"2026-04-26t10:00:00z"}`, false},
	{"hour 24", `{` + base + `,"timestamp":"2026-04-26T24:00:00Z"}`, false},
	{"space before timestamp", `{` + base + `,"timestamp":" 2026-04-26T10:00:00Z"}`, false},
}

func TestReviewDecodeCases(t *testing.T) {
	for _, tt := range reviewDecodeCases {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.fast, sameDecoding(t, []byte(tt.input)), "fast path taken")
		})
	}
}

// The enumerated fields decode to the package's constants.
func TestDecodeFastKnownWords(t *testing.T) {
	m, ok := envelope.DecodeFast([]byte(`{"id":"m","from":"a","to":"b","type":"task_update",` +
		`"task":{"id":"t","state":"canceled"},"content":{"parts":[{"type":"file","path":"p"}]}}`))
	require.True(t, ok)
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

// Metadata values of Go types that decoding never gives are written as
// encoding/json writes them inside the message.
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
			assert.True(t, sameEncoding(t, m), "fast path taken")
		})
	}
	for name, v := range map[string]any{"empty RawMessage": json.RawMessage(""), "NaN in a struct": struct{ X any }{math.NaN()}} {
		t.Run(name, func(t *testing.T) {
			m := fullMessage()
			m.Metadata = map[string]any{"v": v}
			assert.False(t, sameEncoding(t, m), "fast path taken")
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
			assert.True(t, sameEncoding(t, m), "fast path taken")
		})
	}
}
