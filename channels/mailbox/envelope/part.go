package envelope

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxInlineBytes bounds the bytes a file part may carry inline (its
// "data", base64 on the wire): seed 004's 64 KiB. Bigger files travel
// through the artifact store, named by their uri.
const MaxInlineBytes = 64 << 10

// Part is one piece of a message's content: text, structured data or a
// file.
//
// A file part is nanobot's {"type":"file","path":...} (a path on the
// sender's machine), or an artifact (switchboard's, after A2A's FilePart
// and seed 004): Name, MimeType, Size and SHA256 describe the bytes, and
// either Inline holds them (at most MaxInlineBytes, "data" on the wire,
// base64) or URI names them in the artifact store (ArtifactURI). An
// artifact sent from a file keeps the sender's Path, which nanobot reads.
//
// Keys of a part this version does not know are kept in Extra, as they
// were read, and written back after the known ones (sorted by name), so a
// part passes through an agent unchanged.
type Part struct {
	Type PartType       `json:"type"`
	Text string         `json:"text,omitempty"`
	Data map[string]any `json:"data,omitempty"`
	Path string         `json:"path,omitempty"`

	Name     string `json:"name,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	Size     int64  `json:"size,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
	URI      string `json:"uri,omitempty"`
	// Inline is a file part's bytes carried in the message ("data", a
	// base64 string).
	Inline []byte `json:"-"`
	// Extra holds the keys of the part this version does not know, each
	// value as compact JSON.
	Extra map[string]json.RawMessage `json:"-"`
}

// TextPart returns a text part.
func TextPart(s string) Part { return Part{Type: PartText, Text: s} }

// DataPart returns a data part.
func DataPart(d map[string]any) Part { return Part{Type: PartData, Data: d} }

// FilePart returns a file part naming path.
func FilePart(path string) Part { return Part{Type: PartFile, Path: path} }

// IsArtifact reports whether p is a file part that describes its bytes
// (an artifact: a sha256, a uri or inline data), not only a path.
func (p Part) IsArtifact() bool {
	return p.Type == PartFile && (p.SHA256 != "" || p.URI != "" || p.Inline != nil)
}

// partKeys are the keys Part knows, in the order MarshalJSON writes them.
var partKeys = []string{"type", "text", "data", "path", "name", "mime_type", "size", "sha256", "uri"}

// MarshalJSON writes the field that belongs to the part's kind even when
// it is empty (text "" for a text part, data {} for a data part, path ""
// for a file part), because nanobot reads it without a default; any other
// field is written only when set, size whenever the part is an artifact.
// The keys come in one order (partKeys, then Extra's sorted), so that
// a part encodes the same way every time.
func (p Part) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	put := func(key string, v any) error {
		val, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.WriteString(`"` + key + `":`)
		b.Write(val)
		return nil
	}
	var errs []error
	add := func(key string, v any) { errs = append(errs, put(key, v)) }
	add("type", p.Type)
	if p.Type == PartText || p.Text != "" {
		add("text", p.Text)
	}
	switch {
	case p.Type == PartFile && p.Inline != nil:
		add("data", base64.StdEncoding.EncodeToString(p.Inline))
	case p.Type == PartData || p.Data != nil:
		data := p.Data
		if data == nil {
			data = map[string]any{}
		}
		add("data", data)
	}
	if p.Type == PartFile || p.Path != "" {
		add("path", p.Path)
	}
	for _, f := range []struct{ key, val string }{{"name", p.Name}, {"mime_type", p.MimeType}} {
		if f.val != "" {
			add(f.key, f.val)
		}
	}
	if p.IsArtifact() || p.Size != 0 {
		add("size", p.Size)
	}
	for _, f := range []struct{ key, val string }{{"sha256", p.SHA256}, {"uri", p.URI}} {
		if f.val != "" {
			add(f.key, f.val)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(p.Extra)) {
		if knownPartKey(key) {
			continue // a known key is its field's
		}
		add(key, p.Extra[key])
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// knownPartKey reports whether key names a field of Part, as encoding/json
// matches member names (exactly, else case-insensitively).
func knownPartKey(key string) bool {
	return slices.ContainsFunc(partKeys, func(k string) bool { return strings.EqualFold(k, key) })
}

// wirePart is Part as encoding/json reads it; data is either kind's.
type wirePart struct {
	Type     *PartType       `json:"type"`
	Text     *string         `json:"text"`
	Data     json.RawMessage `json:"data"`
	Path     *string         `json:"path"`
	Name     *string         `json:"name"`
	MimeType *string         `json:"mime_type"`
	Size     *int64          `json:"size"`
	SHA256   *string         `json:"sha256"`
	URI      *string         `json:"uri"`
}

// UnmarshalJSON reads a part: null or missing keys are empty; "data" is
// an object (structured data, on any kind of part, as nanobot allows) or,
// on a file part, a base64 string (inline bytes); keys Part does not know
// go to Extra.
func (p *Part) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	var w wirePart
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*p = Part{Type: deref(w.Type), Text: deref(w.Text), Path: deref(w.Path), Name: deref(w.Name),
		MimeType: deref(w.MimeType), Size: deref(w.Size), SHA256: deref(w.SHA256), URI: deref(w.URI)}
	if err := p.readData(w.Data); err != nil {
		return err
	}
	extra, err := unknownMembers(data)
	if err != nil {
		return err
	}
	p.Extra = extra
	return nil
}

// readData reads a part's "data": an object into Data, a base64 string
// into Inline (a file part's only).
func (p *Part) readData(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	switch raw[0] {
	case '{':
		if err := json.Unmarshal(raw, &p.Data); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				te.Field = strings.TrimSuffix("data."+te.Field, ".")
			}
			return err
		}
		return nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return err
		}
		if p.Type != PartFile {
			return &json.UnmarshalTypeError{Value: "string", Type: reflect.TypeFor[map[string]any](), Field: "data"}
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return &json.UnmarshalTypeError{Value: "string that is not base64", Type: reflect.TypeFor[[]byte](), Field: "data"}
		}
		p.Inline = b
		return nil
	}
	return &json.UnmarshalTypeError{Value: jsonKind(raw[0]), Type: reflect.TypeFor[map[string]any](), Field: "data"}
}

// jsonKind names the kind of JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	}
	return "number"
}

// unknownMembers returns the members of the object data whose names Part
// does not know, each value compacted; nil when there are none.
func unknownMembers(data []byte) (map[string]json.RawMessage, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(data), wireSyntax...)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, fmt.Errorf("%w: a part is not an object", ErrMalformed)
	}
	var out map[string]json.RawMessage
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		name := tok.String() // before the next read voids tok
		if knownPartKey(name) {
			if err := dec.SkipValue(); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
			}
			continue
		}
		val, err := dec.ReadValue()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		if out == nil {
			out = map[string]json.RawMessage{}
		}
		compact := slices.Clone([]byte(val))
		if err := (*jsontext.Value)(&compact).Compact(wireSyntax...); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		out[name] = compact
	}
	return out, nil
}
