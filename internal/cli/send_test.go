package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

func TestParseDeadline(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr string
	}{
		{in: "10m", want: now.Add(10 * time.Minute)},
		{in: "1h30m", want: now.Add(90 * time.Minute)},
		{in: "2026-04-26T11:00:00Z", want: now.Add(time.Hour)},
		{in: "2026-04-26T12:00:00+01:00", want: now.Add(time.Hour)},
		{in: "2026-04-26T11:00:00.000000+00:00", want: now.Add(time.Hour)},
		{in: "0s", wantErr: "duration 0s: want more than 0"},
		{in: "-5m", wantErr: "duration -5m: want more than 0"},
		{in: "soon", wantErr: `got "soon"`},
		{in: "2026-13-01T00:00:00Z", wantErr: "want an RFC 3339 time"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseDeadline(tt.in, now)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.True(t, tt.want.Equal(got), "got %v", got)
		})
	}
}

func TestSendRequest(t *testing.T) {
	t.Parallel()
	now := time.Now()
	f := sendFlags{from: "a", to: "b", kind: "task", text: "x", ttl: 4, cbChannel: "feishu", cbSK: "feishu:oc_1"}
	req, err := f.request(now, true)
	require.NoError(t, err)
	assert.Equal(t, "b", req.To)
	assert.Equal(t, 4, req.TTL)
	assert.Equal(t, "feishu", req.Callback.Channel)
	assert.Equal(t, "feishu:oc_1", req.Callback.SessionID)

	// An unset --ttl leaves the budget to the config.
	f = sendFlags{from: "a", to: "b", kind: "message", text: "x"}
	req, err = f.request(now, false)
	require.NoError(t, err)
	assert.Zero(t, req.TTL)

	// A task_update needs no content.
	f = sendFlags{from: "a", to: "b", kind: "task_update", taskID: "t"}
	_, err = f.request(now, false)
	require.NoError(t, err)

	// Every refusal is a usage error.
	f = sendFlags{from: "a", to: "b", kind: "message"}
	_, err = f.request(now, false)
	assert.True(t, isUsage(err))
}

// composeOptions makes a send a reply when --reply-to names a message the
// sender received from the recipient, whichever copy of it comes first;
// otherwise the send joins the thread of the earliest copy, unless it has
// a thread already.
func TestComposeOptionsReplyTo(t *testing.T) {
	t.Parallel()
	s := &settings{mailbox: mailbox.DefaultConfig()}
	at := func(min int) envelope.Time { return envelope.NewTime(time.Date(2026, 4, 26, 10, min, 0, 0, time.UTC)) }
	toCoder := &envelope.Message{ID: "q", From: "lead", To: "coder", Type: envelope.TypeMessage, TTL: 2,
		Trace: []string{"lead"}, ThreadID: "th", Timestamp: at(2)}
	toCritic := &envelope.Message{ID: "q", From: "lead", To: "critic", Type: envelope.TypeMessage, TTL: 2,
		Trace: []string{"lead"}, Timestamp: at(1)}
	copies := []*envelope.Message{toCritic, toCoder}
	now := time.Now()

	req := route.Request{To: "lead", ReplyTo: "q"}
	opts := composeOptions(s, "coder", &req, copies, now)
	require.NotNil(t, opts.Original, "coder answers what it received from lead")
	assert.Equal(t, "coder", opts.Original.To)
	assert.Empty(t, req.ThreadID, "the thread comes from the original")

	req = route.Request{To: "reviewer", ReplyTo: "q"}
	opts = composeOptions(s, "coder", &req, copies, now)
	assert.Nil(t, opts.Original, "reviewer did not send q to coder")
	assert.Equal(t, "q", req.ThreadID, "the earliest copy's thread: its own id, having none")

	req = route.Request{To: "reviewer", ReplyTo: "q", ThreadID: "mine"}
	composeOptions(s, "coder", &req, copies, now)
	assert.Equal(t, "mine", req.ThreadID, "a thread given is kept")

	req = route.Request{To: "lead", ReplyTo: "unknown"}
	opts = composeOptions(s, "coder", &req, nil, now)
	assert.Nil(t, opts.Original)
	assert.Empty(t, req.ThreadID)
	assert.Equal(t, s.mailbox.DefaultTTL, opts.DefaultTTL)
}

// TestSendToARemovedRoot: after the mailbox folder is removed, send says
// that the root does not exist and where (it said no agent was
// registered), and creates nothing; --new creates it and delivers.
func TestSendToARemovedRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "mailboxes")
	code, _, errOut := runMain(t, "--root", root, "send", "--new", "--from", "lead", "--to", "coder", "--text", "first")
	require.Equal(t, ExitOK, code, errOut)
	require.NoError(t, os.RemoveAll(root))

	code, out, errOut := runMain(t, "--root", root, "send", "--from", "lead", "--to", "coder", "--text", "hi")
	assert.Equal(t, ExitUsage, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "switchboard: the mailbox root "+root+" does not exist (it was removed, or no agent has started there yet)")
	assert.NotContains(t, errOut, "registered")
	_, err := os.Lstat(root)
	assert.ErrorIs(t, err, fs.ErrNotExist, "nothing created")

	code, out, errOut = runMain(t, "--root", root, "send", "--new", "--from", "lead", "--to", "coder", "--text", "hi")
	assert.Equal(t, ExitOK, code, errOut)
	assert.True(t, envelope.IsOwnID(strings.TrimSpace(out)), out)
}
