//go:build !envelope_stdjson

package envelope

// handWritten selects the hand-written decoder and encoders (decodeFast,
// encodeCompactFast). Build with -tags envelope_stdjson to run everything
// through encoding/json alone, for comparing the two end to end.
const handWritten = true
