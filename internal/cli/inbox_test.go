package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestInboxKindAndSince: --kind keeps seed 000's kinds (request, response,
// notify; repeated or comma-separated), --since the messages sent at or
// after a time or a duration before now; both together keep what both
// keep, --limit counts only what matches, and an unreadable file is
// listed only without a filter. Bad values are usage errors.
func TestInboxKindAndSince(t *testing.T) {
	root := filepath.Join(t.TempDir(), "mailboxes")
	st, err := fsstore.Open(fsstore.Options{Root: root})
	require.NoError(t, err)
	defer st.Close()
	now := time.Now()
	msg := func(id string, age time.Duration, mutate func(*envelope.Message)) {
		m := &envelope.Message{ID: id, From: "lead", To: "coder", Type: envelope.TypeMessage, TTL: 2,
			Trace: []string{"lead"}, Timestamp: envelope.NewTime(now.Add(-age)),
			Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(id)}}}
		if mutate != nil {
			mutate(m)
		}
		require.NoError(t, st.Deliver(testkit.Ctx(t), m))
	}
	msg("old-request", 3*time.Hour, func(m *envelope.Message) { m.ExpectsReply = true })
	msg("new-request", time.Minute, func(m *envelope.Message) { m.ExpectsReply = true })
	msg("old-notice", 2*time.Hour, nil)
	msg("new-response", 30*time.Second, func(m *envelope.Message) { m.ReplyTo = "elsewhere" })
	msg("new-update", 20*time.Second, func(m *envelope.Message) {
		m.Type, m.Task = envelope.TypeTaskUpdate, &envelope.Task{ID: "t1", State: envelope.StateWorking}
	})
	require.NoError(t, os.WriteFile(filepath.Join(root, "coder", "inbox", "0000000000001_x_broken.msg.json"), []byte("{"), 0o600))

	ids := func(args ...string) []string {
		t.Helper()
		code, out, errOut := runMain(t, append([]string{"--root", root, "inbox", "coder", "--json"}, args...)...)
		require.Equal(t, ExitOK, code, errOut)
		var got []string
		for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
			var l struct{ ID string }
			require.NoError(t, json.Unmarshal([]byte(line), &l))
			got = append(got, l.ID) // "" for the file that cannot be read
		}
		return got
	}
	assert.Equal(t, []string{"", "old-request", "old-notice", "new-request", "new-response", "new-update"}, ids(), "all, the broken file first")
	assert.Equal(t, []string{"old-request", "new-request"}, ids("--kind", "request"))
	assert.Equal(t, []string{"new-response", "new-update"}, ids("--kind", "response"))
	assert.Equal(t, []string{"old-notice", "new-response", "new-update"}, ids("--kind", "notify,response"))
	assert.Equal(t, []string{"old-notice", "new-response", "new-update"}, ids("--kind", "notify", "--kind", "response"))
	assert.Equal(t, []string{"new-request", "new-response", "new-update"}, ids("--since", "1h"))
	assert.Equal(t, []string{"old-notice", "new-request", "new-response", "new-update"},
		ids("--since", now.Add(-2*time.Hour).Format(time.RFC3339Nano)), "at or after the time")
	assert.Equal(t, []string{"new-request"}, ids("--since", "1h", "--kind", "request"))
	assert.Equal(t, []string{"old-request"}, ids("--kind", "request", "--limit", "1"))

	code, out, errOut := runMain(t, "--root", root, "inbox", "coder", "--kind", "notify,response", "--limit", "2")
	require.Equal(t, ExitOK, code, errOut)
	assert.Contains(t, out, "old-notice")
	assert.NotContains(t, out, "new-update")
	assert.Contains(t, out, "... and 1 more (--limit 0 shows all)", "only matches count")
	_, out, _ = runMain(t, "--root", root, "inbox", "coder", "--kind", "request", "--since", "10s")
	assert.Equal(t, "no messages pending that match for coder\n", out)

	for _, tt := range []struct{ args, want string }{
		{"--kind question", `switchboard: --kind "question": want one of request, response, notify`},
		{"--kind request,", `switchboard: --kind "": want one of request, response, notify`},
		{"--since soon", `switchboard: --since: want an RFC 3339 time`},
		{"--since -5m", `switchboard: --since: duration -5m: want 0 or more`},
	} {
		code, _, errOut := runMain(t, append([]string{"--root", root, "inbox", "coder"}, strings.Fields(tt.args)...)...)
		assert.Equal(t, ExitUsage, code, tt.args)
		assert.Contains(t, errOut, tt.want, tt.args)
	}
}
