package envelope_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// sameDecoding checks that DecodeBytes, which tries the fast path first,
// gives for data exactly what the encoding/json path gives: a deep-equal
// message, or an error of the same text and class. It reports whether the
// fast path took the input.
func sameDecoding(t testing.TB, data []byte) (fast bool) {
	t.Helper()
	want, wantErr := envelope.DecodeStd(data)
	got, gotErr := envelope.DecodeBytes(data)
	_, fast = envelope.DecodeFast(data)
	switch {
	case (wantErr == nil) != (gotErr == nil):
		t.Fatalf("fast %v: error %v, want %v\ninput %q", fast, gotErr, wantErr, data)
	case wantErr != nil && (wantErr.Error() != gotErr.Error() ||
		errors.Is(gotErr, envelope.ErrMalformed) != errors.Is(wantErr, envelope.ErrMalformed) ||
		errors.Is(gotErr, envelope.ErrTooLarge) != errors.Is(wantErr, envelope.ErrTooLarge)):
		t.Fatalf("fast %v: error %q, want %q\ninput %q", fast, gotErr, wantErr, data)
	case !reflect.DeepEqual(got, want):
		t.Fatalf("fast %v: decoded differently\ngot  %#v\nwant %#v\ninput %q", fast, got, want, data)
	}
	return fast
}

// base is a minimal valid message to build table inputs from.
const base = `"id":"m","from":"a","to":"b","type":"message"`

func TestDecodeFastTakesWhatSwitchboardAndNanobotWrite(t *testing.T) {
	for name, data := range corpusInputs(t) {
		t.Run(name, func(t *testing.T) {
			fast := sameDecoding(t, data)
			wantFast := !strings.Contains(name, "/upper_") && !strings.Contains(name, "/twice_")
			assert.Equal(t, wantFast, fast, "fast path taken")
		})
	}
}

// decodeCases are inputs on either side of what the fast path takes.
var decodeCases = []struct {
	name, input string
	fast        bool // whether the fast path must take it
}{
	{"minimal", `{` + base + `}`, true},
	{"budget", `{` + base + `,"task":{"id":"t","budget":{"tokens":1200,"cost":0.5}}}`, true},
	{"budget nulls", `{` + base + `,"task":{"id":"t","budget":{"tokens":null,"cost":null}}}`, true},
	{"budget null", `{` + base + `,"task":{"id":"t","budget":null}}`, true},
	{"budget unknown key", `{` + base + `,"task":{"id":"t","budget":{"usd":3,"tokens":7}}}`, true},
	{"budget cost exponent", `{` + base + `,"task":{"id":"t","budget":{"cost":2e-3}}}`, true},
	{"budget fractional tokens", `{` + base + `,"task":{"id":"t","budget":{"tokens":1.5}}}`, false},
	{"budget tokens string", `{` + base + `,"task":{"id":"t","budget":{"tokens":"9"}}}`, false},
	{"budget tokens overflow", `{` + base + `,"task":{"id":"t","budget":{"tokens":99999999999999999999}}}`, false},
	{"budget negative", `{` + base + `,"task":{"id":"t","budget":{"tokens":-5}}}`, true},
	{"used", `{` + base + `,"task":{"id":"t","state":"completed","budget":{"tokens":500},"used":{"tokens":420,"cost":0.003}}}`, true},
	{"used null", `{` + base + `,"task":{"id":"t","used":null}}`, true},
	{"used negative", `{` + base + `,"task":{"id":"t","used":{"cost":-1}}}`, true},
	{"used not an object", `{` + base + `,"task":{"id":"t","used":7}}`, false},
	{"budget not an object", `{` + base + `,"task":{"id":"t","budget":[]}}`, false},
	{"white space everywhere", "\r\n\t{ \"id\" :\t\"m\" ,\n\"from\":\"a\",\"to\":\"b\" , \"type\" : \"message\" }\r\n", true},
	{"empty object", `{}`, true},
	{"escapes", `{` + base + `,"content":{"parts":[{"type":"text","text":"a\"b\\c\/d\b\f\n\r\t\u00e9\u003c\u2028\ud83d\ude00"}]}}`, true},
	{"lone high surrogate", `{` + base + `,"subject":"\ud800"}`, true},
	{"surrogate then escape", `{` + base + `,"subject":"\ud800\u0041"}`, true},
	{"two low surrogates", `{` + base + `,"subject":"\udc00\udc00x"}`, true},
	{"surrogate at end", `{` + base + `,"subject":"x\udbff"}`, true},
	{"surrogate then backslash", `{` + base + `,"subject":"\ud800\n"}`, true},
	{"malformed UTF-8", "{" + base + ",\"subject\":\"a\xffb\xe2\x82\",\"trace\":[\"\xc0\x80\"]}", true},
	{"malformed UTF-8 and escape", "{" + base + ",\"subject\":\"\xed\xa0\x80\\n\"}", true},
	{"raw U+2028 and emoji", "{" + base + ",\"subject\":\"\u2028😀\"}", true},
	{"unknown member skipped", `{"zz":{"a":[1,2.5e3,{"b":null}],"c":true}, ` + base + `,"x":"y"}`, true},
	{"unknown member in task", `{"id":"m","from":"a","to":"b","type":"task","task":{"id":"t","progress":0.5}}`, true},
	{"unknown member in part", `{` + base + `,"content":{"parts":[{"type":"text","text":"x","mime":"text/plain"}],"extra":1}}`, true},
	{"null members", `{` + base + `,"ttl":null,"trace":null,"task":null,"content":null,"callback":null,"reply_to":null,"metadata":null,"thread_id":null,"subject":null,"expects_reply":null,"priority":null,"hop_count":null,"task_id":null,"reply_by":null,"traceparent":null,"tracestate":null,"timestamp":null}`, true},
	{"trace context", `{` + base + `,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"a=1"}`, true},
	{"trace context not a string", `{` + base + `,"traceparent":1}`, false},
	{"null inside", `{"id":"m","from":"a","to":"b","type":"task","task":{"id":"t","state":null,"deadline":null,"reason":null},"callback":{"channel":null,"chat_id":null,"session_id":null},"content":{"parts":null}}`, true},
	{"null elements", `{` + base + `,"trace":["a",null],"content":{"parts":[null,{"type":"data","data":null},{"type":null,"text":null,"path":null}]}}`, true},
	{"empty lists", `{` + base + `,"trace":[],"content":{"parts":[]},"metadata":{}}`, true},
	{"data on every kind", `{` + base + `,"content":{"parts":[{"type":"text","data":{}},{"type":"file","path":"p","data":{"k":[]}}]}}`, true},
	{"numbers", `{` + base + `,"ttl":-0,"priority":3,"hop_count":0,"metadata":{"a":0,"b":-0,"c":1e5,"d":-0.5E-3,"e":1E+2,"f":123456789012345678901234567890,"g":1e-400}}`, true},
	{"duplicate metadata names", `{` + base + `,"metadata":{"a":1,"a":{"b":2}}}`, true},
	{"escaped metadata names", `{` + base + `,"metadata":{"\u0041\n":1,"K":2}}`, true},
	{"timestamps", `{` + base + `,"timestamp":"2026-04-26 10:00:00.1234567","reply_by":"2026-04-26T18:00:00+08:00"}`, true},
	{"zero deadline", `{"id":"m","from":"a","to":"b","type":"task","task":{"id":"t","deadline":"0001-01-01T00:00:00Z"},"reply_by":"0001-01-01T00:00:00Z"}`, true},
	{"escaped timestamp", `{` + base + `,"timestamp":"2026-04-26T10:00:00\u002b00:00"}`, true},
	{"missing id", `{"from":"a","to":"b","type":"message"}`, true},
	{"bad from", `{"id":"m","from":"../x","to":"b","type":"message"}`, true},
	{"priority 4", `{` + base + `,"priority":4}`, true},
	{"negative ttl", `{` + base + `,"ttl":-1}`, true},
	{"task without task block", `{"id":"m","from":"a","to":"b","type":"task"}`, true},
	{"unknown part kind", `{` + base + `,"content":{"parts":[{"type":"image"}]}}`, true},

	{"name in upper case", `{"ID":"m","from":"a","to":"b","type":"message"}`, false},
	{"name in mixed case", `{` + base + `,"Reply_To":"x"}`, false},
	{"name in upper case in task", `{"id":"m","from":"a","to":"b","type":"task","task":{"ID":"t"}}`, false},
	{"name in upper case in part", `{` + base + `,"content":{"parts":[{"Type":"text"}]}}`, false},
	{"name twice", `{"id":"x",` + base + `}`, false},
	{"name twice in task", `{"id":"m","from":"a","to":"b","type":"task","task":{"id":"t","id":"u"}}`, false},
	{"escaped name", `{"\u0069d":"m","from":"a","to":"b","type":"message"}`, false},
	{"non-ASCII name", `{` + base + `,"ſubject":"x"}`, false},
	{"Kelvin sign name", "{" + base + ",\"tas\u212a\":{\"id\":\"t\"}}", false},
	{"escaped Kelvin sign name", `{` + base + `,"tas\u212a":{"id":"t"}}`, false},
	{"fraction ttl", `{` + base + `,"ttl":1.5}`, false},
	{"exponent ttl", `{` + base + `,"ttl":1e2}`, false},
	{"integral fraction ttl", `{` + base + `,"ttl":1.0}`, false},
	{"huge ttl", `{` + base + `,"ttl":99999999999999999999}`, false},
	{"string ttl", `{` + base + `,"ttl":"3"}`, false},
	{"bool priority", `{` + base + `,"priority":true}`, false},
	{"number id", `{"id":1,"from":"a","to":"b","type":"message"}`, false},
	{"string trace", `{` + base + `,"trace":"a"}`, false},
	{"number in trace", `{` + base + `,"trace":[1]}`, false},
	{"list metadata", `{` + base + `,"metadata":[]}`, false},
	{"string expects_reply", `{` + base + `,"expects_reply":"yes"}`, false},
	{"bad timestamp", `{` + base + `,"timestamp":"yesterday"}`, false},
	{"number timestamp", `{` + base + `,"timestamp":1745659200}`, false},
	{"year 10000", `{` + base + `,"timestamp":"9999-12-31T23:59:59-01:00"}`, false},
	{"metadata number overflow", `{` + base + `,"metadata":{"n":1e400}}`, false},
	{"unknown member overflow", `{` + base + `,"zz":-1e400}`, false},
	{"deep metadata", `{` + base + `,"metadata":{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`, false},
	{"trailing comma", `{` + base + `,}`, false},
	{"trailing comma in list", `{` + base + `,"trace":["a",]}`, false},
	{"missing colon", `{"id" "m"}`, false},
	{"missing comma", `{"id":"m" "from":"a"}`, false},
	{"single quotes", `{'id':'m'}`, false},
	{"unclosed", `{` + base, false},
	{"unclosed string", `{"id":"m`, false},
	{"control character", "{" + base + ",\"subject\":\"a\tb\"}", false},
	{"bad escape", `{` + base + `,"subject":"\x"}`, false},
	{"quote escape", `{` + base + `,"subject":"\'"}`, false},
	{"bad unicode escape", `{` + base + `,"subject":"\u12G4"}`, false},
	{"short unicode escape", `{` + base + `,"subject":"\u12"}`, false},
	{"leading zero", `{` + base + `,"metadata":{"n":01}}`, false},
	{"bare minus", `{` + base + `,"metadata":{"n":-}}`, false},
	{"bare point", `{` + base + `,"metadata":{"n":1.}}`, false},
	{"leading point", `{` + base + `,"metadata":{"n":.5}}`, false},
	{"bare exponent", `{` + base + `,"metadata":{"n":1e}}`, false},
	{"plus sign", `{` + base + `,"metadata":{"n":+1}}`, false},
	{"NaN", `{` + base + `,"metadata":{"n":NaN}}`, false},
	{"short literal", `{` + base + `,"expects_reply":tru}`, false},
	{"data after", `{` + base + `} {}`, false},
	{"stray brace after", `{` + base + `}}`, false},
	{"NUL after", "{" + base + "}\x00", false},
	{"byte order mark", "\xef\xbb\xbf{" + base + "}", false},
	{"null", `null`, false},
	{"list", `[]`, false},
	{"empty", ``, false},
	{"white space only", " \n", false},
}

func TestDecodeFastAgreesWithEncodingJSON(t *testing.T) {
	for _, tt := range decodeCases {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.fast, sameDecoding(t, []byte(tt.input)), "fast path taken")
		})
	}
}
