package agentloop

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSessionFileName(t *testing.T) {
	for key, want := range map[string]string{
		"feishu:user_123": "feishu%3Auser_123.jsonl",
		"../../etc":       "%2E%2E%2F%2E%2E%2Fetc.jsonl",
		"..":              "%2E%2E.jsonl",
		"a/b\\c":          "a%2Fb%5Cc.jsonl",
		"":                "%.jsonl",
		"ü":               "%C3%BC.jsonl",
	} {
		assert.Equal(t, want, sessionFileName(key), key)
	}
	long := strings.Repeat("é", 200)
	name := sessionFileName(long)
	assert.LessOrEqual(t, len(name), 200)
	assert.Equal(t, filepath.Base(name), name)
	assert.NotEqual(t, name, sessionFileName(long+"x"))
	assert.Regexp(t, `^(%[0-9A-F]{2})+~[0-9a-f]{24}\.jsonl$`, name, "no escape is cut in half")
	assert.NotEqual(t, sessionFileName(strings.Repeat("a", 300)), sessionFileName(strings.Repeat("a", 301)))
}
