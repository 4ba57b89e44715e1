package httpapi_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
)

// TestHelperHost is the helper process of the tests of a second process
// (channelhost.Serve).
func TestHelperHost(t *testing.T) { channelhost.Serve(t) }

// startHelper runs TestHelperHost in mode with the config file at path.
func startHelper(t *testing.T, mode, path string) *channelhost.Helper {
	t.Helper()
	return channelhost.Start(t, "TestHelperHost", mode, path, true)
}

// A message whose turn was cut by a SIGKILL is answered once after the
// restart; the client posting it again with the same Idempotency-Key
// after the restart gets no second answer; the answers outlive the
// process.
func TestKillMidTurnAnsweredOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`{
  "agents": {"defaults": {"workspace": %q}},
  "channels": {"http": {"enabled": true, "listen": "127.0.0.1:0"}}
}`, dir)), 0o600))

	first := startHelper(t, channelhost.Hold, path)
	h := &harness{t: t, url: first.URL}
	code, body := h.do("POST", "/api/sessions/s1/messages", `{"text": "hello"}`, "Idempotency-Key", "k1")
	require.Equal(t, http.StatusAccepted, code, body)
	first.Lines.WaitFor(t, "the turn started", func(l string) bool { return l == "took s1/k1 false" })
	require.NoError(t, first.Cmd.Process.Kill()) // SIGKILL mid-turn
	_ = first.Cmd.Wait()

	second := startHelper(t, channelhost.Answer, path)
	h.url = second.URL
	second.Lines.WaitFor(t, "the message handed over again", func(l string) bool { return l == "took s1/k1 true" })
	a := h.poll("s1", 0)
	require.Len(t, a.Answers, 1)
	assert.Equal(t, "echo: hello", a.Answers[0].Text)
	assert.Equal(t, "s1/k1", a.Answers[0].ReplyTo)

	// The client did not hear the 202 (say) and posts again: taken, not
	// answered again; a later message's answer shows it went nowhere.
	code, body = h.do("POST", "/api/sessions/s1/messages", `{"text": "hello"}`, "Idempotency-Key", "k1")
	require.Equal(t, http.StatusAccepted, code)
	assert.Contains(t, body, `"duplicate":true`)
	code, _ = h.do("POST", "/api/sessions/s1/messages", `{"text": "next"}`, "Idempotency-Key", "k2")
	require.Equal(t, http.StatusAccepted, code)
	a = h.poll("s1", 1)
	require.Len(t, a.Answers, 1)
	assert.Equal(t, "echo: next", a.Answers[0].Text)
	assert.Equal(t, 1, second.Lines.Count(func(l string) bool { return strings.HasPrefix(l, "took s1/k1") }))
	require.NoError(t, second.Stdin.Close()) // a clean stop
	require.NoError(t, second.Cmd.Wait())

	third := startHelper(t, channelhost.Answer, path)
	h.url = third.URL
	a = h.poll("s1", 0)
	require.Len(t, a.Answers, 2, "the answers are kept across restarts")
	assert.Equal(t, []string{"echo: hello", "echo: next"}, []string{a.Answers[0].Text, a.Answers[1].Text})
	for _, f := range []string{"http-journal.jsonl", "http-answers.jsonl"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, "%s is in the workspace by default", f)
	}
}
