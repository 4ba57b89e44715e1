package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-viper/mapstructure/v2"
)

// Decode decodes raw strictly into out, a non-nil pointer to a struct that
// already holds its defaults; keys missing from raw keep them. Keys are
// matched to the `json` tags of out's fields, after snake_case keys of raw
// are turned into camelCase. path is the key path of raw ("channels.mailbox",
// or "" for the whole file) and starts the path of every error.
//
// A string is accepted where a number, a bool or a list is wanted, as the
// environment gives them: "5", "true", "a,b" or `["a","b"]`. A number is
// accepted where a time.Duration is wanted and read as seconds.
//
// Every unknown key and every bad value is reported, each as a *KeyError,
// joined and sorted by key path. A key that out has no field for but
// nanobot's schema has at that path (channels.feishu.reactEmoji) is not
// unknown: it is accepted and ignored.
func Decode(raw map[string]any, path string, out any) error {
	return decode(raw, path, out, nil, nil)
}

// decode is Decode with the environment variables that set the key paths of
// raw, to name them in errors, and the report that records its keys and
// problems (nil: none).
func decode(raw map[string]any, path string, out any, env map[string]string, r *Report) error {
	p := problems{env: env}
	tree := normaliseMap(raw, path, &p)
	if err := decodeInto(tree, path, out, &p, r); err != nil {
		return err
	}
	r.invalid(p.list)
	return p.err()
}

// decodeInto decodes the normalised tree into out, reporting problems to p
// and what becomes of each key to r (see classify). A key that nanobot's
// schema has and out has no field for is not a problem. It returns an
// error only when out is not a non-nil pointer.
func decodeInto(tree map[string]any, path string, out any, p *problems, r *Report) error {
	if err := decodeValues(tree, path, out, p); err != nil {
		return err
	}
	classify(path, tree, reflect.TypeOf(out), r, p)
	return nil
}

// decodeValues is decodeInto without the check of the keys: keys out has
// no field for are skipped.
func decodeValues(tree map[string]any, path string, out any, p *problems) error {
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		DecodeHook: mapstructure.DecodeHookFuncValue(convert),
		ZeroFields: true, // a list or an object in raw replaces the default, not merges into it
		Squash:     true, // embedded structs' fields are promoted, as encoding/json does
		TagName:    "json",
		MatchName:  func(mapKey, fieldName string) bool { return mapKey == fieldName },
		Result:     out,
	})
	if err != nil { // out is not a non-nil pointer
		return fmt.Errorf("config: decode %q into %T: %w", path, out, err)
	}
	collect(dec.Decode(tree), path, p)
	return nil
}

// collect adds the errors of a mapstructure decode to p, each at its key
// path: mapstructure's "a[b].c" names become "a.b.c", prefixed by path.
func collect(err error, path string, p *problems) {
	if err == nil {
		return
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			collect(e, path, p)
		}
		return
	}
	if de, ok := err.(*mapstructure.DecodeError); ok {
		p.invalid(joinPath(path, keyPath(de.Name())), "%s", describe(de.Unwrap()))
		return
	}
	if inner := errors.Unwrap(err); inner != nil {
		collect(inner, path, p)
		return
	}
	p.invalid(path, "%s", err.Error())
}

// describe words a decode error as "want ..., got ...".
func describe(err error) string {
	var ve *valueError
	var ut *mapstructure.UnconvertibleTypeError
	switch {
	case errors.As(err, &ve):
		return ve.msg
	case errors.As(err, &ut):
		return "want " + ut.Expected.Type().String() + ", got " + show(ut.Value)
	}
	return err.Error()
}

// keyPath turns a mapstructure field name into a key path: a map index
// "providers[openai].apiKey" becomes "providers.openai.apiKey"; a list
// index "allowFrom[0]" stays.
func keyPath(name string) string {
	var b strings.Builder
	for name != "" {
		i := strings.IndexByte(name, '[')
		if i < 0 {
			b.WriteString(name)
			break
		}
		b.WriteString(name[:i])
		name = name[i+1:]
		// The index ends at the "]" followed by the end, "." or "[".
		j := 0
		for ; j < len(name); j++ {
			if name[j] == ']' && (j+1 == len(name) || name[j+1] == '.' || name[j+1] == '[') {
				break
			}
		}
		index := name[:min(j, len(name))]
		if isIndex(index) {
			b.WriteString("[" + index + "]")
		} else {
			b.WriteString("." + index)
		}
		name = name[min(j+1, len(name)):]
	}
	return b.String()
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
