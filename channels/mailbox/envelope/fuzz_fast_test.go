package envelope_test

import (
	"testing"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// FuzzDecodeFast checks, for any input, that the fast decoding path either
// leaves it to encoding/json or gives exactly what encoding/json gives (the
// same message, or an error of the same text and class), and that a decoded
// message encodes as encoding/json encodes it. Run it with
//
//	go test -run='^$' -fuzz=FuzzDecodeFast -fuzztime=5m ./channels/mailbox/envelope
//
// Inputs it found are kept in testdata/fuzz/FuzzDecodeFast.
func FuzzDecodeFast(f *testing.F) {
	for _, data := range corpusInputs(f) {
		f.Add(data)
	}
	for _, tt := range decodeCases {
		f.Add([]byte(tt.input))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameDecoding(t, data)
		if m, err := envelope.DecodeStd(data); err == nil {
			sameEncoding(t, m)
		}
	})
}
