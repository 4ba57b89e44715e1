package fsstore

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// The first fields of a name that sorts before any message of today.
const early = "0000000000001_x_"

func TestMalformedFileAmongGoodOnes(t *testing.T) {
	t.Parallel()
	// nanobot's defect: one malformed file stopped the poll loop for good.
	s, events := openMsgStore(t)
	first, last := newMsg("alice", "bob", "first"), newMsg("alice", "bob", "last")
	deliver(t, s, first)
	inbox := agentPath(s, "bob", inboxDir)
	bad := strings.TrimSuffix(envelope.FileName(first), envelope.MessageSuffix) + "_broken" + envelope.MessageSuffix
	writeRaw(t, inbox, bad, []byte(`{"id": "x", "from": `))
	deliver(t, s, last)

	in := openTestInbox(t, s, "bob")
	assert.Equal(t, "first", next(t, in).Message.Text())
	assert.Equal(t, "last", next(t, in).Message.Text())
	ev := events.TakeKind(t, driver.EventQuarantined, nil)
	assert.Equal(t, bad, ev.Ref)
	assert.Contains(t, ev.Reason, "malformed message")
	rec := readReason(t, agentPath(s, "bob", rejectedDir, bad+reasonSuffix))
	assert.Equal(t, ev.Reason, rec["reason"])
	assert.Equal(t, "bob", rec["agent"])
	assert.Equal(t, bad, rec["file"])

	later := newMsg("alice", "bob", "still running")
	deliver(t, s, later)
	assert.Equal(t, "still running", next(t, in).Message.Text())
}

func TestUnusableInboxEntriesAreQuarantined(t *testing.T) {
	t.Parallel()
	outside := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(outside, []byte("do not touch"), 0o600))
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, os.Chtimes(outside, old, old))

	s, events := openMsgStore(t, func(o *Options) { o.MaxMessageBytes = 4096 })
	inbox := agentPath(s, "bob", inboxDir)
	require.NoError(t, os.MkdirAll(inbox, 0o700))
	wrongTo := newMsg("alice", "carol", "not for bob")
	cases := map[string]string{ // name -> expected reason
		early + "a_oversized.msg.json": "oversized: 5000 bytes > 4096",
		early + "b_symlink.msg.json":   "not a regular file (symlink)",
		early + "c_dir.msg.json":       "not a regular file (directory)",
		early + "d_fifo.msg.json":      "not a regular file (fifo)",
		early + "e_empty.msg.json":     "malformed message: empty file",
		early + "f_wrongto.msg.json":   `addressed to "carol", not to "bob"`,
		early + "g_array.msg.json":     "malformed message",
		"notes.txt":                    "not a message file",
		".DS_Store":                    "not a message file",
		"fifo-other":                   "not a message file",
		"linkdir":                      "not a message file",
	}
	writeRaw(t, inbox, early+"a_oversized.msg.json", []byte(strings.Repeat(" ", 5000)))
	require.NoError(t, os.Symlink(outside, filepath.Join(inbox, early+"b_symlink.msg.json")))
	require.NoError(t, os.Mkdir(filepath.Join(inbox, early+"c_dir.msg.json"), 0o700))
	mkfifo(t, filepath.Join(inbox, early+"d_fifo.msg.json"))
	writeRaw(t, inbox, early+"e_empty.msg.json", nil)
	writeRaw(t, inbox, early+"f_wrongto.msg.json", encoded(t, wrongTo))
	writeRaw(t, inbox, early+"g_array.msg.json", []byte(`[1, 2]`))
	writeRaw(t, inbox, "notes.txt", []byte("hello"))
	writeRaw(t, inbox, ".DS_Store", nil)
	mkfifo(t, filepath.Join(inbox, "fifo-other"))
	require.NoError(t, os.Symlink(filepath.Dir(outside), filepath.Join(inbox, "linkdir")))
	writeRaw(t, inbox, "1745659200_coder.msg.tmp", []byte(`{"partial`)) // a write in progress
	good := newMsg("alice", "bob", "good")
	deliver(t, s, good)

	in := openTestInbox(t, s, "bob")
	d := next(t, in) // nothing above blocks or stops the inbox
	assert.Equal(t, good.ID, d.Message.ID)

	got := map[string]string{}
	for range cases {
		ev := events.TakeKind(t, driver.EventQuarantined, nil)
		got[ev.Ref] = ev.Reason
	}
	for name, want := range cases {
		assert.Contains(t, got[name], want, name)
		rec := readReason(t, agentPath(s, "bob", rejectedDir, name+reasonSuffix))
		assert.Equal(t, got[name], rec["reason"], name)
	}
	assert.Equal(t, []string{"1745659200_coder.msg.tmp", envelope.FileName(good)}, names(t, inbox),
		"the write in progress is left alone, and only the good message stays (claimed)")
	assert.Equal(t, map[string]int{envelope.FileName(good): 1}, claimCounts(t, agentPath(s, "bob", stateDir, claimsName)))

	data, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "do not touch", string(data))
	fi, err := os.Stat(outside)
	require.NoError(t, err)
	assert.True(t, fi.ModTime().Equal(old), "the symlink's target was not touched")
	fi, err = os.Lstat(agentPath(s, "bob", rejectedDir, early+"b_symlink.msg.json"))
	require.NoError(t, err)
	assert.True(t, fi.Mode()&os.ModeSymlink != 0, "the link itself was moved")
}

func TestNanobotWrittenFileIsDelivered(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "researcher")
	got := nextWhenWaiting(t, in)

	// nanobot writes X.msg.tmp, then renames it to <unix-seconds>_<from>.msg.json.
	inbox := agentPath(s, "researcher", inboxDir)
	body := `{
  "id": "msg_1745659200_coder",
  "from": "coder",
  "to": "researcher",
  "timestamp": "2026-04-26T10:00:00.123456+00:00",
  "type": "task",
  "ttl": null,
  "trace": null,
  "task": {"id": "t1", "state": "pending", "deadline": null},
  "content": {"parts": [{"type": "text", "text": "write a sort function"}]},
  "reply_to": null,
  "metadata": {}
}`
	writeRaw(t, inbox, "1745659200_coder.msg.tmp", []byte(body))
	require.NoError(t, os.Rename(filepath.Join(inbox, "1745659200_coder.msg.tmp"),
		filepath.Join(inbox, "1745659200_coder.msg.json")))

	d := receive(t, got)
	m := d.Message
	assert.Equal(t, "msg_1745659200_coder", m.ID)
	assert.Equal(t, "coder", m.From)
	assert.Equal(t, envelope.TypeTask, m.Type)
	assert.Equal(t, envelope.DefaultTTL, m.TTL)
	assert.Empty(t, m.Trace)
	assert.Nil(t, m.Callback)
	assert.Equal(t, "write a sort function", m.Text())
	ack(t, in, d)
	assert.Equal(t, []string{"1745659200_coder.msg.json"}, names(t, agentPath(s, "researcher", processedDir)))
}

func TestJunkLeftInClaimedIsQuarantined(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t)
	writeRaw(t, agentPath(s, "bob", claimedDir), early+"bad.msg.json", []byte("nope"))
	writeRaw(t, agentPath(s, "bob", claimedDir), "stray", nil)
	m := newMsg("alice", "bob", "ok")
	deliver(t, s, m)
	in := openTestInbox(t, s, "bob")
	assert.Equal(t, m.ID, next(t, in).Message.ID)
	refs := []string{events.TakeKind(t, driver.EventQuarantined, nil).Ref, events.TakeKind(t, driver.EventQuarantined, nil).Ref}
	assert.ElementsMatch(t, []string{early + "bad.msg.json", "stray"}, refs)
}

// TestClaimedFolderFromBeforeTheClaimLog: a message that a receiver
// which moved its claims into claimed/ left there is handed out first,
// redelivered, counted towards maxDeliver, and acknowledged from there.
func TestClaimedFolderFromBeforeTheClaimLog(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t, func(o *Options) { o.MaxDeliver = 2 })
	held, poison, later := newMsg("alice", "bob", "held"), newMsg("alice", "bob", "poison"), newMsg("alice", "bob", "later")
	for _, m := range []*envelope.Message{held, poison, later} {
		deliver(t, s, m)
	}
	require.NoError(t, os.MkdirAll(agentPath(s, "bob", claimedDir), 0o700))
	require.NoError(t, os.MkdirAll(agentPath(s, "bob", stateDir), 0o700))
	for _, m := range []*envelope.Message{held, poison} {
		require.NoError(t, os.Rename(agentPath(s, "bob", inboxDir, envelope.FileName(m)), agentPath(s, "bob", claimedDir, envelope.FileName(m))))
	}
	// The poison was handed out once more since, and not acknowledged.
	require.NoError(t, os.WriteFile(agentPath(s, "bob", stateDir, claimsName), []byte(envelope.FileName(poison)+" 1795526694251\n"), 0o600))

	in := openTestInbox(t, s, "bob")
	d := next(t, in)
	assert.Equal(t, held.ID, d.Message.ID)
	assert.True(t, d.Redelivered)
	ack(t, in, d)
	d = next(t, in)
	assert.Equal(t, later.ID, d.Message.ID)
	assert.False(t, d.Redelivered)
	ev := events.TakeKind(t, driver.EventQuarantined, nil)
	assert.Equal(t, poison.ID, ev.MessageID)
	assert.Contains(t, ev.Reason, "maxDeliver 2")
	ack(t, in, d)
	assert.Empty(t, names(t, agentPath(s, "bob", claimedDir)))
	assert.ElementsMatch(t, []string{envelope.FileName(held), envelope.FileName(later)}, names(t, agentPath(s, "bob", processedDir)))
}

func TestOpenInboxSweepsOrphanedStagingFiles(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	tmp := agentPath(s, "bob", tmpDir)
	writeRaw(t, tmp, "old.msg.json.abc.tmp", []byte("x"))
	writeRaw(t, tmp, "new.msg.json.abc.tmp", []byte("x"))
	writeRaw(t, tmp, "other", []byte("x"))
	old := time.Now().Add(-2 * stagingMaxAge)
	require.NoError(t, os.Chtimes(filepath.Join(tmp, "old.msg.json.abc.tmp"), old, old))
	openTestInbox(t, s, "bob")
	assert.ElementsMatch(t, []string{"new.msg.json.abc.tmp", "other"}, names(t, tmp))
}

func TestInboxRecreatedIfRemoved(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "bob")
	require.NoError(t, os.Remove(agentPath(s, "bob", inboxDir)))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := in.Next(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.DirExists(t, agentPath(s, "bob", inboxDir))

	got := nextWhenWaiting(t, in) // and watched again
	m := newMsg("alice", "bob", "x")
	deliver(t, s, m)
	assert.Equal(t, m.ID, receive(t, got).Message.ID)
}
