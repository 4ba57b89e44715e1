package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSafeText(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"plain 排序 text", "plain 排序 text"},
		{"clear\x1b[2J", `clear\x1b[2J`},
		{"a\nb\tc\r", `a\nb\tc\r`},
		{"nul\x00 del\x7f bell\x07", `nul\x00 del\x7f bell\x07`},
		{"c1 \u009b31m csi", `c1 \u009b31m csi`},
		{"bad utf8 \xff\x9b", `bad utf8 \xff\x9b`},
		{`back\slash`, `back\slash`},
	} {
		assert.Equal(t, tt.want, safeText(tt.in), "%q", tt.in)
	}
}

// runIn runs Main in process on the mailbox tree root, with no config.
func runIn(t *testing.T, root string, args ...string) (stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	home := t.TempDir()
	env := Env{Stdout: &out, Stderr: &errOut, Environ: []string{"HOME=" + home}, Version: "test"}
	conf := filepath.Join(home, "config.json")
	require.NoError(t, os.WriteFile(conf, []byte("{}"), 0o600))
	args = append([]string{"--root", root, "--config", conf}, args...)
	Main(context.Background(), args, env)
	return out.String(), errOut.String()
}

// TestHumanOutputEscapesControls: text from the tree (a card's
// description, a message's text and sender) reaches the terminal with its
// control characters escaped, so it cannot clear the screen or fake rows;
// --json keeps the exact text.
func TestHumanOutputEscapesControls(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "coder", "inbox"), 0o700))
	now := time.Now().UTC().Format(time.RFC3339)
	card := map[string]any{"coder": map[string]any{"agent_id": "coder", "description": "evil\x1b[2J\x1b[H\nfake-row\tx",
		"capabilities": []string{"go\x1b[31m"}, "status": "idle", "last_heartbeat": now, "registered_at": now}}
	data, err := json.Marshal(card)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "_registry.json"), data, 0o600))
	msg := map[string]any{"id": "m1\x1b[8m", "from": "lead", "to": "coder", "timestamp": now, "type": "message",
		"content": map[string]any{"parts": []any{map[string]any{"type": "text", "text": "hi\x1b]0;pwned\x07 \u009b2J there"}}}}
	data, err = json.Marshal(msg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "coder", "inbox", "1_lead_x.msg.json"), data, 0o600))

	for _, args := range [][]string{{"agents"}, {"inbox", "coder"}, {"thread", "m1\x1b[8m"}} {
		out, errOut := runIn(t, root, args...)
		assert.NotContains(t, out, "\x1b", "%v: %q", args, out)
		assert.NotContains(t, out, "\u009b", "%v: %q", args, out)
		assert.NotContains(t, out, "\x07", "%v: %q", args, out)
		assert.NotContains(t, errOut, "\x1b", "%v: %q", args, errOut)
		assert.Equal(t, 2, strings.Count(out, "\n"), "%v: a header and one row: %q", args, out)
	}
	out, _ := runIn(t, root, "agents")
	assert.Contains(t, out, `evil\x1b[2J\x1b[H\nfake-row\tx`)
	out, _ = runIn(t, root, "inbox", "coder")
	assert.Contains(t, out, `hi\x1b]0;pwned\x07 \u009b2J there`)

	out, _ = runIn(t, root, "agents", "--json")
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "evil\x1b[2J\x1b[H\nfake-row\tx", got["description"], "--json is exact")
}
