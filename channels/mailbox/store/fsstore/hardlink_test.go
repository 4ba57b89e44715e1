//go:build unix

package fsstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// TestHardLinkedMessageIsQuarantined: an inbox file that is also linked
// elsewhere (possibly a file outside the tree) is set aside with the
// reason, never handed out; the outside file is left as it was.
func TestHardLinkedMessageIsQuarantined(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t)
	outside := filepath.Join(t.TempDir(), "outside.json")
	m := newMsg("alice", "bob", "linked")
	require.NoError(t, os.WriteFile(outside, encoded(t, m), 0o644))
	inbox := agentPath(s, "bob", inboxDir)
	require.NoError(t, os.MkdirAll(inbox, 0o700))
	name := early + "linked.msg.json"
	require.NoError(t, os.Link(outside, filepath.Join(inbox, name)))
	good := newMsg("alice", "bob", "good")
	deliver(t, s, good)

	in := openTestInbox(t, s, "bob")
	assert.Equal(t, "good", next(t, in).Message.Text(), "the linked file is not handed out")
	ev := events.TakeKind(t, driver.EventQuarantined, nil)
	assert.Equal(t, name, ev.Ref)
	assert.Contains(t, ev.Reason, "hard link (2 links)")
	fi, err := os.Stat(outside)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), "the outside file keeps its mode")
}

// TestStagingTwinIsNotAHardLink: a message just linked into the inbox
// still has its staging file in tmp/ until its sender removes it; that
// second link is expected, and the receiver hands the message out and
// leaves the staging file to its sender.
func TestStagingTwinIsNotAHardLink(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t)
	m := newMsg("alice", "bob", "sender finishing")
	dir, err := s.deliveryDir("bob")
	require.NoError(t, err)
	staging, err := s.stage(filepath.Join(dir, tmpDir), envelope.FileName(m), encoded(t, m))
	require.NoError(t, err)
	require.NoError(t, os.Link(staging, filepath.Join(dir, inboxDir, envelope.FileName(m))))

	in := openTestInbox(t, s, "bob")
	assert.Equal(t, "sender finishing", next(t, in).Message.Text())
	assert.Equal(t, 0, events.CountKind(driver.EventQuarantined))
	assert.FileExists(t, staging, "a young staging file is its sender's to remove")
}
