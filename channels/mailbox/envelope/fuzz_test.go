package envelope_test

import (
	"strings"
	"testing"
)

// fuzzMaxBytes is the cap FuzzDecode decodes with; small, so that the
// too-large path is reached too.
const fuzzMaxBytes = 4 << 10

// FuzzDecode checks that Decode never panics and either fails with an error
// wrapping ErrMalformed or ErrTooLarge, or returns a valid message that
// encodes in the shape nanobot reads and decodes back to itself
// (checkDecode). Run it with
//
//	go test -run='^$' -fuzz=FuzzDecode -fuzztime=60s ./channels/mailbox/envelope
//
// Inputs it found are kept in testdata/fuzz/FuzzDecode (with those found
// by the fuzzing of the hand-written decoder that came before
// encoding/json).
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

	for _, data := range corpusInputs(f) {
		f.Add(data)
	}
	for _, tt := range decodeCases {
		f.Add([]byte(tt.input))
	}
	for _, tt := range reviewDecodeCases {
		f.Add([]byte(tt.input))
	}
	f.Fuzz(func(t *testing.T, data []byte) { _, _ = checkDecode(t, data, fuzzMaxBytes) })
}
