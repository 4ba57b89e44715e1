package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
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
		{"bidi \u202eevil\u202c \u2066iso\u2069 \u200fmark \u061calm", `bidi \u202eevil\u202c \u2066iso\u2069 \u200fmark \u061calm`},
		{"zero\u200bwidth\ufeff soft\u00adhyphen line\u2028para\u2029", `zero\u200bwidth\ufeff soft\u00adhyphen line\u2028para\u2029`},
		{"family 👨\u200d👩\u200d👧, می\u200cخواهم, flag 🏴\U000e0067\U000e0062\U000e007f", "family 👨\u200d👩\u200d👧, می\u200cخواهم, flag 🏴\U000e0067\U000e0062\U000e007f"},
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

// TestHumanOutputEscapesBidi: a right-to-left override (U+202E) or an
// isolate in a card's description or a message's text cannot reorder
// what agents, recv and watch print: it is shown escaped; --json keeps it.
func TestHumanOutputEscapesBidi(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "coder", "inbox"), 0o700))
	require.NoError(t, os.Chmod(root, 0o700))
	now := time.Now().UTC().Format(time.RFC3339)
	card := map[string]any{"coder": map[string]any{"agent_id": "coder", "description": "reads \u202egnp.exe\u202c files",
		"status": "idle", "last_heartbeat": now, "registered_at": now}}
	data, err := json.Marshal(card)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "_registry.json"), data, 0o600))
	message := func(id, text string) []byte {
		data, err := json.Marshal(map[string]any{"id": id, "from": "lead", "to": "coder", "timestamp": now, "type": "message",
			"content": map[string]any{"parts": []any{map[string]any{"type": "text", "text": text}}}})
		require.NoError(t, err)
		return data
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "coder", "inbox", "1_lead_x.msg.json"),
		message("m1", "pay \u2066\u202e0001\u2069 now"), 0o600))

	out, _ := runIn(t, root, "agents")
	assert.Contains(t, out, `reads \u202egnp.exe\u202c files`)
	out, _ = runIn(t, root, "agents", "--json")
	assert.Contains(t, out, `"description":"reads `+"\u202e"+`gnp.exe`+"\u202c"+` files"`, "--json keeps the text")
	out, errOut := runIn(t, root, "recv", "coder", "--count", "1")
	assert.Contains(t, out, `pay \u2066\u202e0001\u2069 now`, errOut)

	// watch prints what arrives once it said it is watching.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdoutR, stdoutW := io.Pipe()
	stderrR, stderrW := io.Pipe()
	home := t.TempDir()
	conf := filepath.Join(home, "config.json")
	require.NoError(t, os.WriteFile(conf, []byte("{}"), 0o600))
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"--root", root, "--config", conf, "watch", "coder"},
			Env{Stdout: stdoutW, Stderr: stderrW, Environ: []string{"HOME=" + home}, Version: "test"})
		stdoutW.Close()
		stderrW.Close()
	}()
	ready := bufio.NewScanner(stderrR)
	require.True(t, ready.Scan(), "watch says it is watching")
	require.Contains(t, ready.Text(), "watching")
	go func() { _, _ = io.Copy(io.Discard, stderrR) }()
	staged := filepath.Join(root, "coder", "2_lead_y.msg.tmp") // delivered whole, as a writer does
	require.NoError(t, os.WriteFile(staged, message("m2", "see \u202eexe.txt"), 0o600))
	require.NoError(t, os.Rename(staged, filepath.Join(root, "coder", "inbox", "2_lead_y.msg.json")))
	lines := bufio.NewScanner(stdoutR)
	require.True(t, lines.Scan(), "watch prints the message")
	assert.Contains(t, lines.Text(), `see \u202eexe.txt`)
	assert.NotContains(t, lines.Text(), "\u202e")
	cancel()
	go func() { _, _ = io.Copy(io.Discard, stdoutR) }()
	assert.Equal(t, ExitOK, <-done)
}
