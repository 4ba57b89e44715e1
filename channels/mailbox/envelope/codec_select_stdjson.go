//go:build envelope_stdjson

package envelope

// handWritten is false under the envelope_stdjson build tag: Decode and
// Encode go through encoding/json only (see codec_select.go).
const handWritten = false
