package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A conversation sent from the shell: --reply-to makes a reply that joins
// the thread, and thread reads it back whole wherever its messages are
// (an archive, a processed/ folder, an inbox).
func TestThreadAcrossInboxProcessedAndArchive(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	q := s.sendID("--from", "researcher", "--to", "coder", "--text", "which api?", "--subject", "api-design",
		"--priority", "2", "--expects-reply", "--reply-by", "1h", "--for-task", "t1")
	s.ok("recv", "coder", "--count", "1")
	answer := s.sendID("--from", "coder", "--to", "researcher", "--reply-to", q, "--text", "rest")
	follow := s.sendID("--from", "researcher", "--to", "coder", "--reply-to", answer, "--text", "thanks")

	// coder's copy of the question moves to the archive of its task.
	var qFile string
	for _, box := range []string{"processed", "inbox"} { // held in inbox/ (claimed) until answered
		for _, name := range s.msgFiles("coder", box) {
			if strings.Contains(name, strings.ReplaceAll(q, "-", "")) {
				qFile = filepath.Join(s.root, "coder", box, name)
			}
		}
	}
	require.NotEmpty(t, qFile, "the question was received")
	archive := filepath.Join(s.root, "coder", "archive", "by-task", "t1")
	require.NoError(t, os.MkdirAll(archive, 0o700))
	require.NoError(t, os.Rename(qFile, filepath.Join(archive, filepath.Base(qFile))))

	for _, id := range []string{q, answer, follow} {
		lines := decodeLines(t, s.ok("thread", id, "--json"))
		require.Len(t, lines, 3, "from %s", id)
		assert.Equal(t, []any{q, answer, follow}, []any{lines[0]["id"], lines[1]["id"], lines[2]["id"]})
		assert.Equal(t, []any{float64(0), float64(1), float64(2)}, []any{lines[0]["depth"], lines[1]["depth"], lines[2]["depth"]})
		assert.Equal(t, filepath.Join("coder", "archive", "by-task", "t1", filepath.Base(qFile)), lines[0]["file"])
		assert.Regexp(t, `^researcher/inbox/`, lines[1]["file"])
		assert.Regexp(t, `^coder/inbox/`, lines[2]["file"])
		for _, l := range lines {
			assert.Equal(t, q, l["thread_id"], "every message carries the first one's id")
		}
	}
	first := decodeLines(t, s.ok("thread", q, "--json"))[0]
	assert.Equal(t, "api-design", first["subject"])
	assert.Equal(t, float64(2), first["priority"])
	assert.Equal(t, true, first["expects_reply"])
	assert.Equal(t, "t1", first["task_id"])
	assert.NotEmpty(t, first["reply_by"])
	second := decodeLines(t, s.ok("thread", q, "--json"))[1]
	assert.Equal(t, "t1", second["task_id"], "the answer belongs to the question's task")
	assert.Equal(t, float64(1), second["hop_count"])
}

func TestSendConversationFlagsUsage(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	base := []string{"send", "--from", "a", "--to", "b", "--text", "x"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{append(base, "--subject", "Bad Subject"), "--subject: invalid subject"},
		{append(base, "--priority", "4"), "--priority 4: want 0 to 3"},
		{append(base, "--reply-by", "1h"), "--reply-by needs --expects-reply"},
		{append(base, "--expects-reply", "--reply-by", "soon"), "--reply-by: want an RFC 3339 time"},
		{append(base, "--type", "task", "--for-task", "t"), "--for-task needs --type message"},
	} {
		assertOneLineError(t, s.run(tt.args...), 2, tt.want)
	}
	assert.Empty(t, files(t, s.root))
}
