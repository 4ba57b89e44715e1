package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadRefusesDeepNesting: a 48 KB file nested 8,000 levels deep is
// refused before it is decoded (decoding it took a minute), naming the
// file, the position and the key path that goes too deep; MaxDepth levels
// load.
func TestLoadRefusesDeepNesting(t *testing.T) {
	t.Parallel()
	for _, top := range []string{`{"agents":`, `{"channels":{"mailbox":`, `{"tools":{"x":[`} {
		const n = 8000
		data := top + strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) + strings.Repeat("}", strings.Count(top, "{")-1)
		if strings.HasSuffix(top, "[") {
			data = top + strings.Repeat(`[`, n) + strings.Repeat("]", n) + "]}}"
		}
		path := filepath.Join(t.TempDir(), "config.json")
		require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
		_, err := Load(LoadOptions{Path: path, Lenient: []string{"*"}})
		require.Error(t, err, top)
		assert.Regexp(t, `^`+regexpQuote(path)+`:1:\d+: nested deeper than 32 levels \(at [a-z.\[\]0-9]+\): a configuration is a few levels deep`, err.Error())
	}

	ok := `{"agents":` + strings.Repeat(`{"a":`, MaxDepth-1) + "1" + strings.Repeat("}", MaxDepth) // MaxDepth objects in all
	_, dups, err := readFileData(t, ok)
	assert.NoError(t, err)
	assert.Empty(t, dups)
	_, _, err = readFileData(t, `{"agents":`+strings.Repeat(`{"a":`, MaxDepth)+"1"+strings.Repeat("}", MaxDepth+1))
	assert.ErrorContains(t, err, "nested deeper than 32 levels (at agents"+strings.Repeat(".a", MaxDepth-1)+")")
}

// TestLoadRefusesDuplicateKeys: a key set twice in one object (encoding/json
// keeps the last without a word) is a duplicate-key error naming the key
// path and both lines, wherever it is; the same key in two objects is not.
func TestLoadRefusesDuplicateKeys(t *testing.T) {
	t.Parallel()
	data := `{
  "agents": {"defaults": {
    "model": "gpt-4o",
    "maxTokens": 100,
    "model": "claude-opus-4-5"
  }},
  "tools": {"mcpServers": {"a": {"command": "x", "args": ["1"]}, "b": {"command": "y", "env": {"K": "1", "K": "2"}}}},
  "providers": {"openai": {"apiKey": "k"}},
  "providers": {"deepseek": {"apiKey": "k"}}
}`
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	_, err := Load(LoadOptions{Path: path})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrDuplicateKey), "%v", err)
	for _, want := range []string{
		"agents.defaults.model: set twice in the file, on lines 3 and 5; keep one (the last would win)",
		"tools.mcpServers.b.env.K: set twice in the file, on lines 7 and 7",
		"providers: set twice in the file, on lines 8 and 9",
	} {
		assert.Contains(t, err.Error(), want)
	}
	assert.NotContains(t, err.Error(), "command", "the same key in two objects is no duplicate")

	// A lenient load (config check) records them in the report instead.
	cfg, err := Load(LoadOptions{Path: path, Lenient: []string{"*"}})
	require.NoError(t, err)
	assert.ErrorIs(t, cfg.Report.Err(), ErrDuplicateKey)
}

// TestScanFileLeavesSyntaxErrorsToTheDecoder: a broken file is reported
// by the decoder, with its position, as before.
func TestScanFileLeavesSyntaxErrorsToTheDecoder(t *testing.T) {
	t.Parallel()
	_, _, err := readFileData(t, `{"agents": {"a": 1,}}`)
	assert.ErrorContains(t, err, ":1:20: invalid character '}'")
	dups, err := scanFile([]byte(`{"a": [{"b": 1, "b": 2}, {"b": 3}], "c": {"b": 4}}`))
	require.NoError(t, err)
	require.Len(t, dups, 1)
	assert.Equal(t, "a[0].b", dups[0].Path)
}

// TestEnvironmentDepthIsBounded: a variable naming more than MaxDepth
// levels, and a list value nested deeper, are refused with the variable's
// name.
func TestEnvironmentDepthIsBounded(t *testing.T) {
	t.Parallel()
	deep := "NANOBOT_AGENTS" + strings.Repeat("__A", 8000) + "=1"
	_, err := Load(LoadOptions{Path: filepath.Join(t.TempDir(), "none.json"), Environ: []string{deep}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a key path: 8001 levels, more than 32")
	list := "NANOBOT_AGENTS__DEFAULTS__APPROVAL__TOOLS=" + strings.Repeat("[", 8000) + strings.Repeat("]", 8000)
	_, err = Load(LoadOptions{Path: filepath.Join(t.TempDir(), "none.json"), Environ: []string{list}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "NANOBOT_AGENTS__DEFAULTS__APPROVAL__TOOLS: agents.defaults.approval.tools: want a list, got one nested deeper than 32 levels")
}

// readFileData writes data to a file and reads it as Load does.
func readFileData(t *testing.T, data string) (map[string]any, []*KeyError, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	tree, _, dups, err := readFile(path)
	return tree, dups, err
}

func regexpQuote(s string) string {
	return strings.NewReplacer(`.`, `\.`, `(`, `\(`, `)`, `\)`, `[`, `\[`, `]`, `\]`, `+`, `\+`).Replace(s)
}
