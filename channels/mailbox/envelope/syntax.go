package envelope

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// wireSyntax is what a message's JSON must be, beyond RFC 8259: no object
// names a member twice (encoding/json would keep the last silently);
// malformed UTF-8 is taken, as encoding/json takes it (replaced by
// U+FFFD), since nanobot's writer never makes it and a reader need not
// refuse it.
var wireSyntax = []jsontext.Options{jsontext.AllowDuplicateNames(false), jsontext.AllowInvalidUTF8(true)}

// checkSyntax returns nil when data is one JSON value (white space around
// it aside) in which no object names a member twice. Otherwise it says
// why: in encoding/json's words when encoding/json refuses data too, else
// naming the member given twice.
//
// The check is jsontext's validation (github.com/go-json-experiment/json,
// the syntax layer of encoding/json/v2, which Go ships as
// encoding/json/jsontext under GOEXPERIMENT=jsonv2; the import moves there
// once it is no longer an experiment). It tracks each object's names as
// it goes: one pass over the bytes, with no allocation for a valid
// message.
func checkSyntax(data []byte) error {
	if jsontext.Value(data).IsValid(wireSyntax...) {
		return nil
	}
	var w wireMessage
	std := json.NewDecoder(bytes.NewReader(data))
	if err := std.Decode(&w); err != nil {
		return fmt.Errorf("%w: %s", ErrMalformed, describeJSONError(err))
	}
	// Not std.More: it reports false for a stray '}' or ']'.
	if off := std.InputOffset(); len(bytes.Trim(data[off:], " \t\r\n")) > 0 {
		return fmt.Errorf("%w: data after the JSON object at byte %d", ErrMalformed, off)
	}
	_, err := jsontext.NewDecoder(bytes.NewReader(data), wireSyntax...).ReadValue()
	var se *jsontext.SyntacticError
	if errors.As(err, &se) && errors.Is(se.Err, jsontext.ErrDuplicateName) {
		return fmt.Errorf("%w: key %q given twice", ErrMalformed, dottedPath(se.JSONPointer))
	}
	if err == nil { // not expected: IsValid and ReadValue disagree
		err = errors.New("not one JSON value")
	}
	return fmt.Errorf("%w: %v", ErrMalformed, err)
}

// dottedPath writes a JSON pointer ("/content/parts/0/type") as the
// errors of encoding/json name a field ("content.parts[0].type").
func dottedPath(p jsontext.Pointer) string {
	var b strings.Builder
	first := true
	for tok := range p.Tokens() {
		switch {
		case first:
			b.WriteString(tok)
		case isIndex(tok):
			b.WriteString("[" + tok + "]")
		default:
			b.WriteString("." + tok)
		}
		first = false
	}
	return b.String()
}

// isIndex reports whether a pointer token is an array index.
func isIndex(tok string) bool {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return false
	}
	for _, c := range []byte(tok) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
