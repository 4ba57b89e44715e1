package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// LoadOptions says where Load reads the configuration from.
type LoadOptions struct {
	// Path is the JSON file; "" means DefaultPath(). A leading "~/" is
	// expanded. A missing file is not an error: the defaults apply.
	Path string
	// Environ is the environment as os.Environ returns it, "KEY=value"
	// strings; its NANOBOT_ variables override the file. nil means no
	// environment overrides; callers pass os.Environ().
	Environ []string
	// Lenient lists top-level sections ("agents", "providers") whose
	// problems do not fail Load: a command that does not use them runs
	// whatever they hold. Their problems stay in Config.Report (its Err
	// returns them), and a host refuses them. "*" names every section and
	// the environment's variable names, so that Load fails only on a file it
	// cannot read or parse (for a command that lists every problem).
	Lenient []string
}

// Load reads the configuration: the defaults of Default, overridden by the
// file, overridden by the environment. A malformed file is an error naming
// the file, line and column; every bad key or value, in the file or the
// environment, is reported at once as a *KeyError (see Decode). A key
// that switchboard does not use but nanobot's schema has is accepted and
// recorded as ignored in Config.Report. Channel sections are only checked
// to be objects here; each channel decodes its own with Section.Decode.
func Load(opts LoadOptions) (*Config, error) {
	path := opts.Path
	if path == "" {
		path = DefaultPath()
	}
	path, err := ExpandHome(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	fileTree, found, dups, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return assemble(path, found, fileTree, dups, opts)
}

// readFile reads (see readConfigFile) and parses the JSON object in path.
// found is false, and the tree empty, when there is no such file. A file
// nested deeper than MaxDepth is an error; dups are the keys it sets twice
// (see scanFile).
func readFile(path string) (tree map[string]any, found bool, dups []*KeyError, err error) {
	data, err := readConfigFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, false, nil, nil
	}
	if err != nil {
		return nil, false, nil, fmt.Errorf("config: %w", err)
	}
	dups, err = scanFile(data)
	var de *depthError
	if errors.As(err, &de) {
		line, col := position(data, de.offset, false)
		return nil, false, nil, fmt.Errorf("%s:%d:%d: %w: a configuration is a few levels deep; name the right file (--config FILE)", path, line, col, err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se.Offset, strings.HasPrefix(se.Error(), "unexpected end"))
			return nil, false, nil, fmt.Errorf("%s:%d:%d: %w", path, line, col, err)
		}
		var te *json.UnmarshalTypeError // a number out of range, such as 1e309
		if errors.As(err, &te) {
			start := te.Offset // just past the value: back to its start
			if lit, ok := strings.CutPrefix(te.Value, "number "); ok {
				start -= int64(len(lit))
			}
			line, col := position(data, start, false)
			return nil, false, nil, fmt.Errorf("%s:%d:%d: %w", path, line, col, err)
		}
		return nil, false, nil, fmt.Errorf("%s: %w", path, err)
	}
	tree, ok := v.(map[string]any)
	if !ok {
		return nil, false, nil, fmt.Errorf("%s: want a JSON object at the top level, got %s", path, show(v))
	}
	return tree, true, dups, nil
}

// position returns the 1-based line and byte column of a JSON error at
// offset (the bytes read, the bad one included): of the offending byte,
// or just past the end for a truncated file (atEnd).
func position(data []byte, offset int64, atEnd bool) (line, col int) {
	at := int(offset) - 1
	if atEnd {
		at = int(offset)
	}
	at = max(0, min(at, len(data)))
	before := data[:at]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = at - bytes.LastIndexByte(before, '\n')
	return line, col
}

// providerDefaults fills the defaults of each "providers" entry that the
// file and environment leave out, before decoding: a zero there is a
// choice (maxRetries 0 means never retry), so it cannot mean "unset".
func providerDefaults(raw map[string]any) {
	providers, _ := raw["providers"].(map[string]any)
	for _, entry := range providers {
		if pc, ok := entry.(map[string]any); ok {
			if _, set := pc["maxRetries"]; !set {
				pc["maxRetries"] = DefaultProviderMaxRetries
			}
		}
	}
}
