package envelope

import (
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// value reads any JSON value as encoding/json decodes it into an any:
// objects as map[string]any, arrays as []any, numbers as float64.
func (s *scanner) value() (any, bool) {
	switch c := s.skipSpace(); {
	case c == '"':
		return s.str()
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == 't':
		return true, s.literal("true")
	case c == 'f':
		return false, s.literal("false")
	case c == 'n':
		return nil, s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		end, _, ok := s.number()
		if !ok {
			return nil, false
		}
		f, err := strconv.ParseFloat(string(s.data[start:end]), 64)
		return f, err == nil
	}
	return nil, false
}

// object reads an object into a new map; for a duplicate name the last
// value wins, as with encoding/json.
func (s *scanner) object() (map[string]any, bool) {
	if !s.enter('{') {
		return nil, false
	}
	m := make(map[string]any)
	for first := true; ; first = false {
		next, ok := s.more('}', first)
		if !ok || !next {
			return m, ok
		}
		k, ok := s.str()
		if !ok || s.skipSpace() != ':' {
			return nil, false
		}
		s.pos++
		v, ok := s.value()
		if !ok {
			return nil, false
		}
		m[k] = v
	}
}

// array reads an array into a new slice (empty, not nil, for []).
func (s *scanner) array() ([]any, bool) {
	if !s.enter('[') {
		return nil, false
	}
	out := make([]any, 0)
	for first := true; ; first = false {
		next, ok := s.more(']', first)
		if !ok || !next {
			return out, ok
		}
		v, ok := s.value()
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
}

// objectOrNull reads a map field: null leaves it nil.
func (s *scanner) objectOrNull() (map[string]any, bool) {
	if s.skipSpace() == 'n' {
		return nil, s.literal("null")
	}
	return s.object()
}

// hex4 reads the four hex digits of a \u escape, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// unquoteSlow decodes the inside of a string literal whose escapes the
// scanner has checked, exactly as encoding/json does: surrogate pairs are
// joined, a lone surrogate and each byte of malformed UTF-8 become U+FFFD.
func unquoteSlow(s []byte) []byte {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			r++
			switch e := s[r]; e {
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				rr := hex4(s[r+1:])
				r += 4
				if utf16.IsSurrogate(rr) {
					dec := unicode.ReplacementChar
					if r+2 < len(s) && s[r+1] == '\\' && s[r+2] == 'u' {
						dec = utf16.DecodeRune(rr, hex4(s[r+3:]))
					}
					if dec != unicode.ReplacementChar {
						r += 6 // a valid pair: the second escape is used too
					}
					rr = dec
				}
				b = utf8.AppendRune(b, rr)
			default: // '"', '\\', '/'
				b = append(b, e)
			}
			r++
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return b
}
