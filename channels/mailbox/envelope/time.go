package envelope

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"
)

// wireLayout is how timestamps are written: Python's isoformat of an aware
// UTC datetime, which nanobot writes and reads.
const wireLayout = "2006-01-02T15:04:05.000000-07:00"

// readLayouts are tried in order when reading; layouts without a zone are UTC.
var readLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02 15:04:05.999999999",
}

// Time is a timestamp in the mailbox format. It reads RFC 3339 and Python
// isoformat (with or without a zone, "T" or space separated) and writes
// "2026-04-26T10:00:00.000000+00:00". The zero Time is written as null.
type Time struct{ time.Time }

// NewTime wraps t.
func NewTime(t time.Time) Time { return Time{t} }

// ParseTime reads s in any of the accepted layouts. Like Python, it keeps
// microseconds (finer digits are dropped, so that what is read is what is
// written back), and it refuses years that Python's datetime and the
// written form cannot hold (before 1 or after 9999 in UTC).
func ParseTime(s string) (Time, error) {
	for _, layout := range readLayouts {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		t = t.UTC().Truncate(time.Microsecond)
		if y := t.Year(); y < 1 || y > 9999 {
			return Time{}, fmt.Errorf("timestamp %q: year %d in UTC is out of range 1 to 9999", s, y)
		}
		return Time{t}, nil
	}
	return Time{}, fmt.Errorf("want an RFC 3339 timestamp, got %q", s)
}

// String formats t as it is written.
func (t Time) String() string { return t.UTC().Format(wireLayout) }

// MarshalJSON writes t, or null for the zero time.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	// The layout's digits and separators need no escaping in JSON.
	b := make([]byte, 0, len(wireLayout)+2)
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, wireLayout)
	return append(b, '"'), nil
}

// UnmarshalJSON reads a timestamp string; null leaves t zero.
func (t *Time) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*t = Time{}
		return nil
	}
	var s string
	if n := len(b); n >= 2 && b[0] == '"' && b[n-1] == '"' && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
		s = string(b[1 : n-1]) // nothing to unescape: the common case, without encoding/json
	} else if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want an RFC 3339 timestamp string, got %s", b)
	}
	parsed, err := ParseTime(s)
	if err != nil {
		return err
	}
	*t = parsed
	return nil
}
