package fsstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// TestSymlinkedInboxEntryIsNotFollowed puts symlinks named like messages
// into an inbox and into claimed/, pointing out of the tree: at a file
// that is a valid message for the agent (following the link would deliver
// it), at a folder, and at nothing (following it with O_CREAT would create
// the target). The read-only listing reports them without reading
// through them; the receiver hands out only the real message, moves each
// link itself to rejected/ with a reason and keeps running; and nothing
// outside the tree changes: not the target's content, mode or time.
func TestSymlinkedInboxEntryIsNotFollowed(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	out, secret := outsideTree(t, parent)
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	require.NoError(t, os.Chtimes(secret, old, old))
	s, events := openMsgStore(t, func(o *Options) { o.Root = filepath.Join(parent, "mailboxes") })
	inbox, claimed := agentPath(s, "bob", inboxDir), agentPath(s, "bob", claimedDir)
	require.NoError(t, os.MkdirAll(inbox, 0o700))
	require.NoError(t, os.MkdirAll(claimed, 0o700))
	links := map[string]string{ // link -> target
		filepath.Join(inbox, early+"a_file.msg.json"):      secret,
		filepath.Join(inbox, early+"b_dir.msg.json"):       filepath.Join(out, "sub"),
		filepath.Join(inbox, early+"c_dangling.msg.json"):  filepath.Join(out, "created-through-link"),
		filepath.Join(claimed, early+"d_claimed.msg.json"): secret,
	}
	for link, target := range links {
		require.NoError(t, os.Symlink(target, link))
	}
	before := snapshotTree(t, out)
	ctx := context.Background()

	listed := 0
	require.NoError(t, s.Pending(ctx, "bob", func(name string, m *envelope.Message, err error) bool {
		assert.Nil(t, m, name)
		assert.ErrorContains(t, err, "symlink", name)
		listed++
		return true
	}))
	assert.Equal(t, 3, listed)

	good := newMsg("alice", "bob", "good")
	deliver(t, s, good)
	in := openTestInbox(t, s, "bob")
	d := next(t, in)
	assert.Equal(t, good.ID, d.Message.ID, "only the real message is handed out")
	assert.False(t, d.Redelivered)
	ack(t, in, d)

	reasons := map[string]string{}
	for range links {
		ev := events.TakeKind(t, driver.EventQuarantined, nil)
		reasons[ev.Ref] = ev.Reason
	}
	for link, target := range links {
		name := filepath.Base(link)
		assert.Contains(t, reasons[name], "not a regular file (symlink)", name)
		got, err := os.Readlink(agentPath(s, "bob", rejectedDir, name))
		require.NoError(t, err, "the link itself is in rejected/")
		assert.Equal(t, target, got)
		assert.FileExists(t, agentPath(s, "bob", rejectedDir, name+reasonSuffix))
	}
	assert.Equal(t, before, snapshotTree(t, out), "nothing outside the tree changed")
	fi, err := os.Stat(secret)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
	assert.True(t, fi.ModTime().Equal(old))

	got := nextWhenWaiting(t, in) // and the inbox keeps working
	later := newMsg("alice", "bob", "later")
	deliver(t, s, later)
	assert.Equal(t, later.ID, receive(t, got).Message.ID)
}

// TestEntryNamedLikeMessageDoesNotStopDelivery puts a folder (with a file
// in it), a FIFO or a symlink out of the tree at the very name the next
// message will get. Deliver neither fails nor writes into, through or over
// it: the message gets another name. The receiver hands the message out,
// moves the entry aside untouched, and keeps running.
func TestEntryNamedLikeMessageDoesNotStopDelivery(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"directory", "fifo", "symlink"} {
		t.Run(kind, func(t *testing.T) {
			parent := t.TempDir()
			out, secret := outsideTree(t, parent)
			s, events := openMsgStore(t, func(o *Options) { o.Root = filepath.Join(parent, "mailboxes") })
			in := openTestInbox(t, s, "bob")
			m := newMsg("alice", "bob", "blocked name")
			name := envelope.FileName(m)
			blocker := agentPath(s, "bob", inboxDir, name)
			switch kind {
			case "directory":
				require.NoError(t, os.Mkdir(blocker, 0o700))
				require.NoError(t, os.WriteFile(filepath.Join(blocker, "inside"), []byte("inside"), 0o600))
			case "fifo":
				mkfifo(t, blocker)
			case "symlink":
				require.NoError(t, os.Symlink(secret, blocker))
			}
			before := snapshotTree(t, out)

			deliver(t, s, m)
			assert.Len(t, names(t, agentPath(s, "bob", inboxDir)), 2, "the entry and the message")
			d := next(t, in)
			assert.Equal(t, m.ID, d.Message.ID)
			assert.NotEqual(t, name, d.Ref.(*claimRef).name, "delivered under another name")
			ack(t, in, d)

			ev := events.TakeKind(t, driver.EventQuarantined, nil)
			assert.Equal(t, name, ev.Ref)
			assert.Contains(t, ev.Reason, "not a regular file ("+kind+")")
			moved := agentPath(s, "bob", rejectedDir, name)
			fi, err := os.Lstat(moved)
			require.NoError(t, err)
			switch kind {
			case "directory":
				data, err := os.ReadFile(filepath.Join(moved, "inside"))
				require.NoError(t, err)
				assert.Equal(t, "inside", string(data))
			case "fifo":
				assert.NotZero(t, fi.Mode()&os.ModeNamedPipe)
			case "symlink":
				assert.NotZero(t, fi.Mode()&os.ModeSymlink)
			}

			got := nextWhenWaiting(t, in)
			later := newMsg("alice", "bob", "later")
			deliver(t, s, later)
			assert.Equal(t, later.ID, receive(t, got).Message.ID)
			assert.Equal(t, before, snapshotTree(t, out), "nothing outside the tree changed")
		})
	}
}

// TestUnsafeRootRefusedTouchesNothing: a root that others can write to
// is refused, also when reached through a symlink or protected only by
// the sticky bit, and Open changes nothing there or beside it (it does
// not "repair" the mode either).
func TestUnsafeRootRefusedTouchesNothing(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		mode os.FileMode
		link bool
	}{
		{"world writable", 0o777, false},
		{"world writable and sticky", 0o777 | os.ModeSticky, false},
		{"group writable", 0o770, false},
		{"world writable behind a symlink", 0o777, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parent := t.TempDir()
			outsideTree(t, parent)
			real := filepath.Join(parent, "mb")
			writeRaw(t, filepath.Join(real, "bob", inboxDir), envelope.FileName(newMsg("alice", "bob", "x")),
				encoded(t, newMsg("alice", "bob", "x")))
			writeRaw(t, real, registryName, []byte(`{}`))
			require.NoError(t, os.Chmod(real, tt.mode))
			root := real
			if tt.link {
				root = filepath.Join(parent, "link")
				require.NoError(t, os.Symlink(real, root))
			}
			before := snapshotTree(t, parent)
			s, err := Open(Options{Root: root})
			if err == nil {
				s.Close()
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "writable by group or others")
			assert.Contains(t, err.Error(), "chmod 700")
			assert.Equal(t, before, snapshotTree(t, parent), "nothing in or beside the root changed")
		})
	}
}
