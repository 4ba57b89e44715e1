package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// MaxDepth is the deepest nesting of objects and lists a configuration
// file may have. A real configuration is a handful of levels deep
// (tools.mcpServers.NAME.env.KEY is five); a file nested thousands of
// levels deep is refused before it is decoded, which would take minutes.
const MaxDepth = 32

// depthError is a file nested deeper than MaxDepth: where, and the key
// path that goes too deep.
type depthError struct {
	offset int64
	path   string
}

func (e *depthError) Error() string {
	return fmt.Sprintf("nested deeper than %d levels (at %s)", MaxDepth, e.path)
}

// scanFile checks the JSON text of a configuration file before it is
// decoded: nesting deeper than MaxDepth is an error (a *depthError), and
// every key set twice in one object is returned as a problem at its path
// (encoding/json would keep the last value without a word). A syntax
// error stops the scan without an error: decoding reports it, with its
// position.
func scanFile(data []byte) (dups []*KeyError, err error) {
	type frame struct {
		object  bool
		wantKey bool             // an object expects a key next
		key     string           // an object's current key
		seen    map[string]int64 // an object's keys → offset just past their first use
		index   int              // a list's current element
	}
	var stack []*frame
	pathOf := func(last int) string {
		var path string
		for _, f := range stack[:last] {
			if f.object {
				path = joinPath(path, f.key)
			} else {
				path = joinPath(path, "["+strconv.Itoa(f.index)+"]")
			}
		}
		return path
	}
	valueDone := func() { // a value of the innermost container ended
		if n := len(stack); n > 0 {
			if f := stack[n-1]; f.object {
				f.wantKey = true
			} else {
				f.index++
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return dups, nil // the end, or a syntax error that decoding reports
		}
		switch tok := tok.(type) {
		case json.Delim:
			switch tok {
			case '{', '[':
				if len(stack) == MaxDepth {
					return nil, &depthError{offset: dec.InputOffset(), path: pathOf(len(stack))}
				}
				f := &frame{object: tok == '{', wantKey: tok == '{'}
				if f.object {
					f.seen = map[string]int64{}
				}
				stack = append(stack, f)
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				f := stack[n-1]
				f.key, f.wantKey = tok, false
				if first, dup := f.seen[tok]; dup {
					line, _ := position(data, first, false)
					again, _ := position(data, dec.InputOffset(), false)
					dups = append(dups, &KeyError{Path: pathOf(n), Err: ErrDuplicateKey,
						Msg: fmt.Sprintf("set twice in the file, on lines %d and %d; keep one (the last would win)", line, again)})
				} else {
					f.seen[tok] = dec.InputOffset()
				}
				continue
			}
			valueDone()
		default:
			valueDone()
		}
	}
}
