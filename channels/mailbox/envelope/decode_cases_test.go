package envelope_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// checkDecode decodes data with the cap maxBytes (0: none) and checks
// what every decoding must give: an error that wraps ErrMalformed
// or ErrTooLarge and no message, or a valid message that encodes in the
// shape nanobot reads, decodes back to itself, encodes the same again
// and names a safe file. DecodeBytes and Decode agree.
func checkDecode(t testing.TB, data []byte, maxBytes int64) (*envelope.Message, error) {
	t.Helper()
	m, err := envelope.Decode(bytes.NewReader(data), maxBytes)
	if err != nil {
		if m != nil {
			t.Fatalf("Decode returned a message and an error %v", err)
		}
		if !errors.Is(err, envelope.ErrMalformed) && !errors.Is(err, envelope.ErrTooLarge) {
			t.Fatalf("error wraps neither ErrMalformed nor ErrTooLarge: %v", err)
		}
		if !errors.Is(err, envelope.ErrTooLarge) {
			if _, err2 := envelope.DecodeBytes(data); err2 == nil || err2.Error() != err.Error() {
				t.Fatalf("DecodeBytes says %v, Decode %v", err2, err)
			}
		}
		return nil, err
	}
	if err := envelope.Validate(m); err != nil {
		t.Fatalf("Decode returned an invalid message: %v", err)
	}
	out, err := envelope.Encode(m)
	if err != nil {
		t.Fatalf("Encode of a decoded message: %v", err)
	}
	// A message without a timestamp decodes (readers are lenient) but
	// is never sent (Deliver refuses it), so give it one to check
	// the shape of what would be sent.
	sent := *m
	if sent.Timestamp.IsZero() {
		sent.Timestamp = envelope.NewTime(time.Unix(1745659200, 0))
	}
	if wire, err := envelope.Encode(&sent); err != nil || nanobotShapeError(wire) != nil {
		t.Fatalf("nanobot could not read the encoding (%v, %v):\n%s", err, nanobotShapeError(wire), wire)
	}
	back, err := envelope.DecodeBytes(out)
	if err != nil {
		t.Fatalf("decode of the re-encoded message: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(m, back) {
		t.Fatalf("round trip changed the message:\nfirst  %#v\nsecond %#v\nwire %s", m, back, out)
	}
	again, err := envelope.Encode(back)
	if err != nil || !bytes.Equal(out, again) {
		t.Fatalf("encoding is not stable (%v):\n%s\n%s", err, out, again)
	}
	name := envelope.FileName(m)
	if strings.ContainsAny(name, "/\x00") || strings.HasPrefix(name, ".") ||
		!strings.HasSuffix(name, envelope.MessageSuffix) {
		t.Fatalf("unsafe file name %q", name)
	}
	return m, nil
}

// decodesAs checks data with checkDecode and that it decodes, or fails
// with the error "malformed message: "+wantErr.
func decodesAs(t *testing.T, data []byte, wantErr string) {
	t.Helper()
	_, err := checkDecode(t, data, 0)
	if wantErr == "" {
		assert.NoError(t, err)
		return
	}
	assert.EqualError(t, err, "malformed message: "+wantErr)
}

// Everything switchboard and nanobot write decodes: the golden files,
// the corpus in all three styles, with a member null, left out, spelt in
// upper case (encoding/json matches names regardless of case) or an
// unknown one added. A member given twice is refused, naming it.
func TestDecodeWhatSwitchboardAndNanobotWrite(t *testing.T) {
	refused := map[string]string{ // required members null or left out
		"id": "missing id", "from": "from: invalid agent id: empty", "to": "to: invalid agent id: empty",
		"type": `type "": want message, task or task_update`, "task": "type task without a task block",
	}
	for name, data := range corpusInputs(t) {
		t.Run(name, func(t *testing.T) {
			_, variant, _ := strings.Cut(name, "/")
			kind, key, _ := strings.Cut(variant, "_")
			switch {
			case kind == "twice":
				decodesAs(t, data, `key "`+key+`" given twice`)
			case (kind == "null" || kind == "without") && refused[key] != "":
				decodesAs(t, data, refused[key])
			default:
				decodesAs(t, data, "")
			}
		})
	}
}

// base is a minimal valid message to build table inputs from.
const base = `"id":"m","from":"a","to":"b","type":"message"`

// decodeCases are inputs at the edges of what decodes: every kind of
// value, null and escape, unknown members, malformed JSON of every kind,
// with the error each gives after "malformed message: " ("" when it
// decodes). The hand-written decoder that came before encoding/json took
// the upper part and left the rest to it, with the same results.
var decodeCases = []struct {
	name, input string
	err         string
}{
	{"minimal", `{` + base + `}`, ""},
	{"budget", `{` + base + `,"task":{"id":"t","budget":{"tokens":1200,"cost":0.5}}}`, ""},
	{"budget nulls", `{` + base + `,"task":{"id":"t","budget":{"tokens":null,"cost":null}}}`, ""},
	{"budget null", `{` + base + `,"task":{"id":"t","budget":null}}`, ""},
	{"budget unknown key", `{` + base + `,"task":{"id":"t","budget":{"usd":3,"tokens":7}}}`, ""},
	{"budget cost exponent", `{` + base + `,"task":{"id":"t","budget":{"cost":2e-3}}}`, ""},
	{"budget fractional tokens", `{` + base + `,"task":{"id":"t","budget":{"tokens":1.5}}}`, "field \"task.budget.tokens\": want int64, got number 1.5"},
	{"budget tokens string", `{` + base + `,"task":{"id":"t","budget":{"tokens":"9"}}}`, "field \"task.budget.tokens\": want int64, got string"},
	{"budget tokens overflow", `{` + base + `,"task":{"id":"t","budget":{"tokens":99999999999999999999}}}`, "field \"task.budget.tokens\": want int64, got number 99999999999999999999"},
	{"budget negative", `{` + base + `,"task":{"id":"t","budget":{"tokens":-5}}}`, "task budget must not be negative"},
	{"used", `{` + base + `,"task":{"id":"t","state":"completed","budget":{"tokens":500},"used":{"tokens":420,"cost":0.003}}}`, ""},
	{"used null", `{` + base + `,"task":{"id":"t","used":null}}`, ""},
	{"used negative", `{` + base + `,"task":{"id":"t","used":{"cost":-1}}}`, "task usage must not be negative"},
	{"used not an object", `{` + base + `,"task":{"id":"t","used":7}}`, "field \"task.used\": want envelope.Budget, got number"},
	{"budget not an object", `{` + base + `,"task":{"id":"t","budget":[]}}`, "field \"task.budget\": want envelope.Budget, got array"},
	{"white space everywhere", "\r\n\t{ \"id\" :\t\"m\" ,\n\"from\":\"a\",\"to\":\"b\" , \"type\" : \"message\" }\r\n", ""},
	{"empty object", `{}`, "missing id"},
	{"escapes", `{` + base + `,"content":{"parts":[{"type":"text","text":"a\"b\\c\/d\b\f\n\r\t\u00e9\u003c\u2028\ud83d\ude00"}]}}`, ""},
	{"lone high surrogate", `{` + base + `,"subject":"\ud800"}`, ""},
	{"surrogate then escape", `{` + base + `,"subject":"\ud800\u0041"}`, ""},
	{"two low surrogates", `{` + base + `,"subject":"\udc00\udc00x"}`, ""},
	{"surrogate at end", `{` + base + `,"subject":"x\udbff"}`, ""},
	{"surrogate then backslash", `{` + base + `,"subject":"\ud800\n"}`, ""},
	{"malformed UTF-8", "{" + base + ",\"subject\":\"a\xffb\xe2\x82\",\"trace\":[\"\xc0\x80\"]}", ""},
	{"malformed UTF-8 and escape", "{" + base + ",\"subject\":\"\xed\xa0\x80\\n\"}", ""},
	{"raw U+2028 and emoji", "{" + base + ",\"subject\":\"\u2028😀\"}", ""},
	{"unknown member skipped", `{"zz":{"a":[1,2.5e3,{"b":null}],"c":true}, ` + base + `,"x":"y"}`, ""},
	{"unknown member in task", `{"id":"m","from":"a","to":"b","type":"task","task":{"id":"t","progress":0.5}}`, ""},
	{"unknown member in part", `{` + base + `,"content":{"parts":[{"type":"text","text":"x","mime":"text/plain"}],"extra":1}}`, ""},
	{"null members", `{` + base + `,"ttl":null,"trace":null,"task":null,"content":null,"callback":null,"reply_to":null,"metadata":null,"thread_id":null,"subject":null,"expects_reply":null,"priority":null,"hop_count":null,"task_id":null,"reply_by":null,"traceparent":null,"tracestate":null,"timestamp":null}`, ""},
	{"trace context", `{` + base + `,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"a=1"}`, ""},
	{"trace context not a string", `{` + base + `,"traceparent":1}`, "field \"traceparent\": want string, got number"},
	{"null inside", `{"id":"m","from":"a","to":"b","type":"task","task":{"id":"t","state":null,"deadline":null,"reason":null},"callback":{"channel":null,"chat_id":null,"session_id":null},"content":{"parts":null}}`, ""},
	{"null elements", `{` + base + `,"trace":["a",null],"content":{"parts":[null,{"type":"data","data":null},{"type":null,"text":null,"path":null}]}}`, "content.parts[0]: type \"\": want text, data or file"},
	{"empty lists", `{` + base + `,"trace":[],"content":{"parts":[]},"metadata":{}}`, ""},
	{"data on every kind", `{` + base + `,"content":{"parts":[{"type":"text","data":{}},{"type":"file","path":"p","data":{"k":[]}}]}}`, ""},
	{"numbers", `{` + base + `,"ttl":-0,"priority":3,"hop_count":0,"metadata":{"a":0,"b":-0,"c":1e5,"d":-0.5E-3,"e":1E+2,"f":123456789012345678901234567890,"g":1e-400}}`, ""},
	{"duplicate metadata names", `{` + base + `,"metadata":{"a":1,"a":{"b":2}}}`, "key \"metadata.a\" given twice"},
	{"escaped metadata names", `{` + base + `,"metadata":{"\u0041\n":1,"K":2}}`, ""},
	{"timestamps", `{` + base + `,"timestamp":"2026-04-26 10:00:00.1234567","reply_by":"2026-04-26T18:00:00+08:00"}`, ""},
	{"zero deadline", `{"id":"m","from":"a","to":"b","type":"task","task":{"id":"t","deadline":"0001-01-01T00:00:00Z"},"reply_by":"0001-01-01T00:00:00Z"}`, ""},
	{"escaped timestamp", `{` + base + `,"timestamp":"2026-04-26T10:00:00\u002b00:00"}`, ""},
	{"missing id", `{"from":"a","to":"b","type":"message"}`, "missing id"},
	{"bad from", `{"id":"m","from":"../x","to":"b","type":"message"}`, "from: invalid agent id \"../x\": must not start with \".\""},
	{"priority 4", `{` + base + `,"priority":4}`, "priority 4: want 0 to 3"},
	{"negative ttl", `{` + base + `,"ttl":-1}`, "ttl and hop_count must not be negative"},
	{"task without task block", `{"id":"m","from":"a","to":"b","type":"task"}`, "type task without a task block"},
	{"unknown part kind", `{` + base + `,"content":{"parts":[{"type":"image"}]}}`, "content.parts[0]: type \"image\": want text, data or file"},

	{"name in upper case", `{"ID":"m","from":"a","to":"b","type":"message"}`, ""},
	{"name in mixed case", `{` + base + `,"Reply_To":"x"}`, ""},
	{"name in upper case in task", `{"id":"m","from":"a","to":"b","type":"task","task":{"ID":"t"}}`, ""},
	{"name in upper case in part", `{` + base + `,"content":{"parts":[{"Type":"text"}]}}`, ""},
	{"name twice", `{"id":"x",` + base + `}`, "key \"id\" given twice"},
	{"name twice in task", `{"id":"m","from":"a","to":"b","type":"task","task":{"id":"t","id":"u"}}`, "key \"task.id\" given twice"},
	{"escaped name", `{"\u0069d":"m","from":"a","to":"b","type":"message"}`, ""},
	{"non-ASCII name", `{` + base + `,"ſubject":"x"}`, ""},
	{"Kelvin sign name", "{" + base + ",\"tas\u212a\":{\"id\":\"t\"}}", ""},
	{"escaped Kelvin sign name", `{` + base + `,"tas\u212a":{"id":"t"}}`, ""},
	{"fraction ttl", `{` + base + `,"ttl":1.5}`, "field \"ttl\": want int, got number 1.5"},
	{"exponent ttl", `{` + base + `,"ttl":1e2}`, "field \"ttl\": want int, got number 1e2"},
	{"integral fraction ttl", `{` + base + `,"ttl":1.0}`, "field \"ttl\": want int, got number 1.0"},
	{"huge ttl", `{` + base + `,"ttl":99999999999999999999}`, "field \"ttl\": want int, got number 99999999999999999999"},
	{"string ttl", `{` + base + `,"ttl":"3"}`, "field \"ttl\": want int, got string"},
	{"bool priority", `{` + base + `,"priority":true}`, "field \"priority\": want int, got bool"},
	{"number id", `{"id":1,"from":"a","to":"b","type":"message"}`, "field \"id\": want string, got number"},
	{"string trace", `{` + base + `,"trace":"a"}`, "field \"trace\": want []string, got string"},
	{"number in trace", `{` + base + `,"trace":[1]}`, "field \"trace\": want string, got number"},
	{"list metadata", `{` + base + `,"metadata":[]}`, "field \"metadata\": want map[string]interface {}, got array"},
	{"string expects_reply", `{` + base + `,"expects_reply":"yes"}`, "field \"expects_reply\": want bool, got string"},
	{"bad timestamp", `{` + base + `,"timestamp":"yesterday"}`, "want an RFC 3339 timestamp, got \"yesterday\""},
	{"number timestamp", `{` + base + `,"timestamp":1745659200}`, "want an RFC 3339 timestamp string, got 1745659200"},
	{"year 10000", `{` + base + `,"timestamp":"9999-12-31T23:59:59-01:00"}`, "timestamp \"9999-12-31T23:59:59-01:00\": year 10000 in UTC is out of range 1 to 9999"},
	{"metadata number overflow", `{` + base + `,"metadata":{"n":1e400}}`, "field \"metadata\": want float64, got number 1e400"},
	{"unknown member overflow", `{` + base + `,"zz":-1e400}`, ""},
	{"deep metadata", `{` + base + `,"metadata":{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`, ""},
	{"trailing comma", `{` + base + `,}`, "invalid JSON at byte 48: invalid character '}' looking for beginning of object key string"},
	{"trailing comma in list", `{` + base + `,"trace":["a",]}`, "invalid JSON at byte 61: invalid character ']' looking for beginning of value"},
	{"missing colon", `{"id" "m"}`, "invalid JSON at byte 7: invalid character '\"' after object key"},
	{"missing comma", `{"id":"m" "from":"a"}`, "invalid JSON at byte 11: invalid character '\"' after object key:value pair"},
	{"single quotes", `{'id':'m'}`, "invalid JSON at byte 2: invalid character '\\'' looking for beginning of object key string"},
	{"unclosed", `{` + base, "truncated JSON"},
	{"unclosed string", `{"id":"m`, "truncated JSON"},
	{"control character", "{" + base + ",\"subject\":\"a\tb\"}", "invalid JSON at byte 60: invalid character '\\t' in string literal"},
	{"bad escape", `{` + base + `,"subject":"\x"}`, "invalid JSON at byte 60: invalid character 'x' in string escape code"},
	{"quote escape", `{` + base + `,"subject":"\'"}`, "invalid JSON at byte 60: invalid character '\\'' in string escape code"},
	{"bad unicode escape", `{` + base + `,"subject":"\u12G4"}`, "invalid JSON at byte 63: invalid character 'G' in \\u hexadecimal character escape"},
	{"short unicode escape", `{` + base + `,"subject":"\u12"}`, "invalid JSON at byte 63: invalid character '\"' in \\u hexadecimal character escape"},
	{"leading zero", `{` + base + `,"metadata":{"n":01}}`, "invalid JSON at byte 65: invalid character '1' after object key:value pair"},
	{"bare minus", `{` + base + `,"metadata":{"n":-}}`, "invalid JSON at byte 65: invalid character '}' in numeric literal"},
	{"bare point", `{` + base + `,"metadata":{"n":1.}}`, "invalid JSON at byte 66: invalid character '}' after decimal point in numeric literal"},
	{"leading point", `{` + base + `,"metadata":{"n":.5}}`, "invalid JSON at byte 64: invalid character '.' looking for beginning of value"},
	{"bare exponent", `{` + base + `,"metadata":{"n":1e}}`, "invalid JSON at byte 66: invalid character '}' in exponent of numeric literal"},
	{"plus sign", `{` + base + `,"metadata":{"n":+1}}`, "invalid JSON at byte 64: invalid character '+' looking for beginning of value"},
	{"NaN", `{` + base + `,"metadata":{"n":NaN}}`, "invalid JSON at byte 64: invalid character 'N' looking for beginning of value"},
	{"short literal", `{` + base + `,"expects_reply":tru}`, "invalid JSON at byte 67: invalid character '}' in literal true (expecting 'e')"},
	{"data after", `{` + base + `} {}`, "data after the JSON object at byte 47"},
	{"stray brace after", `{` + base + `}}`, "data after the JSON object at byte 47"},
	{"NUL after", "{" + base + "}\x00", "data after the JSON object at byte 47"},
	{"byte order mark", "\xef\xbb\xbf{" + base + "}", "invalid JSON at byte 1: invalid character 'ï' looking for beginning of value"},
	{"null", `null`, "missing id"},
	{"list", `[]`, "want a JSON object, got array"},
	{"empty", ``, "empty file"},
	{"white space only", " \n", "empty file"},
}

func TestDecodeCases(t *testing.T) {
	for _, tt := range decodeCases {
		t.Run(tt.name, func(t *testing.T) { decodesAs(t, []byte(tt.input), tt.err) })
	}
}
