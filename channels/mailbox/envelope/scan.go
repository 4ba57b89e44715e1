package envelope

import (
	"strconv"
	"unicode/utf8"
)

// scanner reads the JSON that DecodeBytes' fast path understands. Every
// method reports ok=false as soon as the input is anything it does not
// fully understand or is not valid JSON; the caller then gives up and the
// input is decoded by encoding/json instead, which also words the error.
// So the scanner never has to describe a fault, only to notice it.
//
// Decoded strings never share memory with the input, as with encoding/json:
// a string kept after its message is dropped (an id in a set of handled
// ids, a task id in an index of tasks) must not keep the whole input alive.
type scanner struct {
	data  []byte
	pos   int
	depth int
}

// maxDepth is the deepest nesting of objects and arrays the scanner
// follows; deeper input is left to encoding/json (which allows 10000).
const maxDepth = 64

// skipSpace moves past JSON white space and returns the byte after it
// (0 at the end of the input).
func (s *scanner) skipSpace() byte {
	for s.pos < len(s.data) {
		switch c := s.data[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return c
		}
	}
	return 0
}

// literal consumes word (true, false or null) at s.pos.
func (s *scanner) literal(word string) bool {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return false
	}
	s.pos += len(word)
	return true
}

// enter consumes the opening byte of an object or array.
func (s *scanner) enter(open byte) bool {
	if s.skipSpace() != open || s.depth >= maxDepth {
		return false
	}
	s.pos++
	s.depth++
	return true
}

// more is called before each member of an object (close '}') or element
// of an array (close ']') that enter opened. It reports whether another
// one follows, consuming the ',' before it, or consumes the closing byte.
func (s *scanner) more(close byte, first bool) (next, ok bool) {
	c := s.skipSpace()
	if c == close {
		s.pos++
		s.depth--
		return false, true
	}
	if first {
		return true, true
	}
	if c != ',' {
		return false, false
	}
	s.pos++
	return true, true
}

// key reads an object member's name and the ':' after it. Names with an
// escape or a byte outside ASCII are refused: encoding/json matches struct
// fields case-insensitively under Unicode folding, which the fast path
// does not attempt.
func (s *scanner) key() ([]byte, bool) {
	if s.skipSpace() != '"' {
		return nil, false
	}
	start := s.pos + 1
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.pos = i + 1
			if s.skipSpace() != ':' {
				return nil, false
			}
			s.pos++
			return s.data[start:i], true
		case c == '\\' || c < ' ' || c >= utf8.RuneSelf:
			return nil, false
		}
	}
	return nil, false
}

// plain marks the bytes that stand for themselves in a JSON string: ASCII
// from ' ' on, except '"' and '\\'.
var plain = func() (t [256]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str reads a string value, decoded as encoding/json decodes it.
func (s *scanner) str() (string, bool) {
	if s.skipSpace() != '"' {
		return "", false
	}
	d := s.data
	start := s.pos + 1
	ascii := true
	for i := start; i < len(d); i++ {
		if plain[d[i]] {
			continue
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			if !ascii && !utf8.Valid(d[start:i]) {
				return string(unquoteSlow(d[start:i])), true
			}
			return string(d[start:i]), true
		case c == '\\':
			return s.escaped(start)
		case c < ' ':
			return "", false
		default:
			ascii = false
		}
	}
	return "", false
}

// escaped reads the string that starts at start and holds an escape.
func (s *scanner) escaped(start int) (string, bool) {
	for i := start; i < len(s.data); i++ {
		switch c := s.data[i]; {
		case c == '"':
			s.pos = i + 1
			return string(unquoteSlow(s.data[start:i])), true
		case c < ' ':
			return "", false
		case c == '\\':
			i++
			if i >= len(s.data) {
				return "", false
			}
			switch s.data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if hex4(s.data[i+1:]) < 0 {
					return "", false
				}
				i += 4
			default:
				return "", false
			}
		}
	}
	return "", false
}

// number reads a JSON number and returns where its text ends and whether
// it is an integer (no fraction, no exponent).
func (s *scanner) number() (end int, integer, ok bool) {
	d, i := s.data, s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		return 0, false, false
	}
	integer = true
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return 0, false, false
		}
		i, integer = j, false
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return 0, false, false
		}
		i, integer = j, false
	}
	s.pos = i
	return i, integer, true
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// integer reads an int field: null (ok, set false) or an integer that
// strconv.ParseInt takes, as encoding/json requires of an int.
func (s *scanner) integer() (n int, set, ok bool) {
	switch c := s.skipSpace(); {
	case c == 'n':
		return 0, false, s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		end, integer, ok := s.number()
		if !ok || !integer {
			return 0, false, false
		}
		v, err := strconv.ParseInt(string(s.data[start:end]), 10, strconv.IntSize)
		return int(v), true, err == nil
	}
	return 0, false, false
}

// int64OrNull reads an int64 field: null leaves it 0; otherwise an
// integer that strconv.ParseInt takes, as encoding/json requires.
func (s *scanner) int64OrNull() (int64, bool) {
	switch c := s.skipSpace(); {
	case c == 'n':
		return 0, s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		end, integer, ok := s.number()
		if !ok || !integer {
			return 0, false
		}
		v, err := strconv.ParseInt(string(s.data[start:end]), 10, 64)
		return v, err == nil
	}
	return 0, false
}

// float64OrNull reads a float64 field: null leaves it 0; otherwise a
// number that strconv.ParseFloat takes, as encoding/json requires.
func (s *scanner) float64OrNull() (float64, bool) {
	switch c := s.skipSpace(); {
	case c == 'n':
		return 0, s.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		start := s.pos
		end, _, ok := s.number()
		if !ok {
			return 0, false
		}
		v, err := strconv.ParseFloat(string(s.data[start:end]), 64)
		return v, err == nil
	}
	return 0, false
}

// boolean reads a bool field; null leaves it false.
func (s *scanner) boolean() (v, ok bool) {
	switch s.skipSpace() {
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	case 'n':
		return false, s.literal("null")
	}
	return false, false
}

// word reads a string field that is usually one of known (a type, a task
// state), returning the constant itself, without allocating, when it is.
// Anything else is read as strOrNull reads it.
func (s *scanner) word(known []string) (string, bool) {
	if s.skipSpace() == '"' {
		rest := s.data[s.pos+1:]
		for _, k := range known { // k holds no '"' or '\\': compared raw
			if len(rest) > len(k) && rest[len(k)] == '"' && string(rest[:len(k)]) == k {
				s.pos += len(k) + 2
				return k, true
			}
		}
	}
	return s.strOrNull()
}

// strOrNull reads a string field; null leaves it "" (encoding/json
// ignores null for a string).
func (s *scanner) strOrNull() (string, bool) {
	if s.skipSpace() == 'n' {
		return "", s.literal("null")
	}
	return s.str()
}
