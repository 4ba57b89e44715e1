package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// python runs code with python3, nanobot's mailbox algorithm
// (bench/mailbox/nanobot_algo.py: MailboxManager's send, poll and
// mark_processed) importable as n and the mailbox root as root, and
// returns its stdout. Without python3 the test skips, except on CI.
func (s *sandbox) python(code string) string {
	s.t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") == "true" {
			s.t.Fatalf("python3 not found (%v); .ci/run installs it", err)
		}
		s.t.Skipf("python3 not found (%v): nanobot's side runs with it", err)
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "bench", "mailbox"))
	require.NoError(s.t, err)
	prelude := "import sys, json\nsys.path.insert(0, " + pyString(dir) + ")\nimport nanobot_algo as n\nfrom pathlib import Path\nroot = Path(" + pyString(s.root) + ")\n"
	cmd := exec.Command("python3", "-c", prelude+code)
	cmd.Env = s.env()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(s.t, err, "python3:\n%s", stderr.String())
	return string(out)
}

// pyString is s as a Python string literal.
func pyString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestNanobotTalksToSignedAgent: a nanobot agent (MailboxManager's
// algorithm, in Python) and a switchboard agent in one team. nanobot's
// unsigned message is taken, marked unverified wherever it is shown (recv,
// thread, the note the model reads); switchboard's reply is signed, in an
// extra key nanobot's poll reads past.
func TestNanobotTalksToSignedAgent(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	recv := s.start("recv", "coder", "--json")
	recv.awaitStderr("listening as coder")

	s.python(`n.send(root, "nano", "coder", n.channel_message("nano", "coder", "hello from nanobot"))`)
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "nanobot's message")), &line))
	md := line["mailbox"].(map[string]any)
	assert.Equal(t, "nano", md["from"])
	assert.Equal(t, true, md["unverified"], "taken unsigned from an agent with no key pinned, and marked so")
	asked := md["message_id"].(string)
	assert.Empty(t, s.msgFiles("coder", "dead"), "nothing set aside")

	res := s.run("send", "--new", "--from", "coder", "--to", "nano", "--reply-to", asked, "--text", "hi nanobot")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Empty(t, res.stderr, "signed with coder's key")
	reply := strings.TrimSpace(res.stdout)

	var polled []map[string]any
	require.NoError(t, json.Unmarshal([]byte(s.python(`
msgs = n.poll(root, "nano")
for m in msgs:
    n.mark_processed(root, "nano", m["_filename"])
print(json.dumps(msgs))`)), &polled))
	require.Len(t, polled, 1)
	assert.Equal(t, reply, polled[0]["id"])
	assert.Equal(t, "coder", polled[0]["from"])
	assert.Equal(t, asked, polled[0]["reply_to"])
	assert.Equal(t, "hi nanobot", polled[0]["content"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"])
	assert.Contains(t, polled[0], "signature", "the signature rides in a key nanobot does not read")

	table := s.ok("thread", reply)
	assert.Regexp(t, `(?m)^\S.* +nano \(unverified\) +coder +message +`+asked+` +hello from nanobot$`, table)
	assert.Regexp(t, `(?m)^\S.* +  coder +nano +message +`+reply+` +hi nanobot$`, table, "coder's reply is verified")
	recv.signal(os.Interrupt)
	require.Equal(t, 0, recv.wait(), recv.stderrSoFar())
}
