package audit

import (
	"bytes"
	"encoding/json"
	"time"
)

// appendEntry appends e as one line, as encoding/json's Encoder writes it
// (fields in declaration order, empty optional fields left out, the
// trailing newline). A time that encoding/json cannot write (a year
// outside 0 to 9999) is written as the zero time, so that the line is
// never lost.
func appendEntry(b []byte, e Entry) []byte {
	if y := e.Time.Year(); y < 0 || y > 9999 {
		e.Time = time.Time{}
	}
	buf := bytes.NewBuffer(b)
	if err := json.NewEncoder(buf).Encode(e); err != nil {
		// Not reached: every field of an Entry has a JSON form.
		return append(b, `{"kind":"unencodable"}`+"\n"...)
	}
	return buf.Bytes()
}
