package envelope_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// fuzzMaxBytes is the cap FuzzDecode decodes with; small, so that the
// too-large path is reached too.
const fuzzMaxBytes = 4 << 10

// FuzzDecode checks that Decode never panics and either fails with an error
// wrapping ErrMalformed or ErrTooLarge, or returns a valid message that
// encodes in the shape nanobot reads and decodes back to itself. Run it with
//
//	go test -run='^$' -fuzz=FuzzDecode -fuzztime=60s ./channels/mailbox/envelope
//
// Inputs it found are kept in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{
		"nanobot_message.json", "nanobot_message_nulls.json",
		"switchboard_message.json", "switchboard_message_minimal.json",
	} {
		f.Add(readTestdata(f, name))
	}
	for _, s := range []string{
		"", "{}", "null", "[]", `"x"`, "{", "}", "{}}", "{} {}",
		`{"id":"m","from":"a","to":"b","type":"message"}`,
		`{"id":"m","from":"a","to":"b","type":"message"}]`,
		`{"id":"m","from":"a","to":"b","type":"message","ttl":null,"trace":null,"metadata":null,"content":null}`,
		`{"id":"m","from":"a","to":"b","type":"message","content":{"parts":[{"type":"data","data":null}]}}`,
		`{"id":"m","from":"a","to":"b","type":"message","content":{"parts":[{"type":"data","data":{}}]}}`,
		`{"id":"m","from":"a","to":"b","type":"message","content":{"parts":[{"type":"text"}]}}`,
		`{"id":"m","from":"a","to":"b","type":"task","task":{"id":"t","deadline":"0001-01-01T00:00:00Z"}}`,
		`{"id":"m","from":"a","to":"b","type":"message","timestamp":"2026-04-26T10:00:00.123456789Z"}`,
		`{"id":"m","from":"a","to":"b","type":"message","timestamp":"9999-12-31T23:59:59-01:00"}`,
		`{"id":"m","from":"a","to":"b","type":"message","timestamp":"0001-01-01T00:00:00Z"}`,
		`{"id":"m","from":"a","to":"b","type":"message","reply_to":"","callback":{}}`,
		`{"ID":"m","FROM":"a","To":"b","TYPE":"message"}`,
		`{"id":"m","from":"../x","to":"b","type":"message"}`,
		`{"id":"m","from":"a","to":"b","type":"message","metadata":{"n":1e308,"z":-0,"s":"\ud800"}}`,
		`{"id":"m","from":"a","to":"b","type":"message","priority":3,"hop_count":9223372036854775807}`,
		"\xef\xbb\xbf{}",
		strings.Repeat("[", 4000),
		`{"id":"m","from":"a","to":"b","type":"message","metadata":{"pad":"` + strings.Repeat("x", fuzzMaxBytes) + `"}}`,
	} {
		f.Add([]byte(s))
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := envelope.Decode(bytes.NewReader(data), fuzzMaxBytes)
		if err != nil {
			if m != nil {
				t.Fatalf("Decode returned a message and an error %v", err)
			}
			if !errors.Is(err, envelope.ErrMalformed) && !errors.Is(err, envelope.ErrTooLarge) {
				t.Fatalf("error wraps neither ErrMalformed nor ErrTooLarge: %v", err)
			}
			return
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
	})
}
