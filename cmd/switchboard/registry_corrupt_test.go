package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A corrupt _registry.json (a writer without a lock tore it) blocks
// neither agents nor send: they use the cards that can still be read, and
// say so on stderr; doctor --fix rewrites it, keeping a copy.
func TestCorruptRegistryBlocksNothing(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	path := filepath.Join(s.root, "_registry.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(data[:len(data)-2], []byte(`, "torn": {`)...), 0o600))

	r := s.run("agents", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "mailbox registry is corrupt")
	var ids []string
	for _, l := range decodeLines(t, r.stdout) {
		ids = append(ids, l["agent_id"].(string))
	}
	assert.Subset(t, ids, []string{"coder", "researcher"}, "the readable cards")
	before := len(s.msgFiles("coder", "inbox"))
	s.ok("send", "--from", "boss", "--to", "coder", "--text", "still delivered")
	assert.Len(t, s.msgFiles("coder", "inbox"), before+1)

	out := s.ok("doctor", "--fix", "--json")
	assert.Contains(t, out, "rewritten with")
	fixed, err := os.ReadFile(path)
	require.NoError(t, err)
	var entries map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(fixed, &entries), "the registry parses again")
	assert.Contains(t, entries, "coder")
	assert.NotContains(t, s.run("agents").stderr, "corrupt")
}
