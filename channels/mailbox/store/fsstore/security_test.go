package fsstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// snapshotTree describes everything under dir (type, mode, size, content
// or link target, modification time), so that a test can prove nothing
// there changed.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%s size=%d mtime=%d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			desc += " -> " + target
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(data)
			desc += " sha256=" + hex.EncodeToString(sum[:])
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		out[rel] = desc
		return nil
	})
	require.NoError(t, err)
	return out
}

// outsideTree makes a folder beside the mailbox root holding a file that
// is a valid message for bob (mode 0644) and a folder, as an attacker's
// targets; it returns the folder and the file.
func outsideTree(t *testing.T, parent string) (dir, file string) {
	t.Helper()
	dir = filepath.Join(parent, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	file = filepath.Join(dir, "secret.msg.json")
	require.NoError(t, os.WriteFile(file, encoded(t, newMsg("mallory", "bob", "read me if you follow links")), 0o644))
	require.NoError(t, os.Chmod(file, 0o644)) // whatever the umask
	return dir, file
}

// TestBadAgentIDsTouchNothing offers ids that would escape the tree (or
// name its own files) to every call that takes an agent id: each refuses
// with ErrBadAgentID before touching the disk, and nothing in or beside
// the tree changes, not even a folder named as the traversal would
// reach it.
func TestBadAgentIDsTouchNothing(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(parent, "x"), 0o700)) // where "../x" leads
	require.NoError(t, os.WriteFile(filepath.Join(parent, "x", "keep"), []byte("keep"), 0o600))
	outsideTree(t, parent)
	s, err := Open(Options{Root: filepath.Join(parent, "mailboxes"), NoSync: true})
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	deliver(t, s, newMsg("alice", "bob", "a tree with something in it"))
	_, err = s.UpdateCard(ctx, "bob", func(*envelope.Card) {})
	require.NoError(t, err)
	before := snapshotTree(t, parent)

	bad := []string{"../x", "..", ".", "../outside", "a/b", "/etc", "x/../../x", `..\x`, "",
		"x\x00y", "x\ny", "tab\t", "del\x7f", "a b", strings.Repeat("a", envelope.MaxAgentIDLen+1),
		"_registry.json", ".lock", "_x"}
	for i, id := range bad {
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			check := func(call string, err error) {
				t.Helper()
				assert.ErrorIs(t, err, envelope.ErrBadAgentID, "%s(%q)", call, id)
			}
			m := newMsg("alice", "bob", "x")
			m.To = id
			check("Deliver to", s.Deliver(ctx, m))
			m = newMsg("alice", "bob", "x")
			m.From = id
			check("Deliver from", s.Deliver(ctx, m))
			_, err := s.OpenInbox(ctx, id)
			check("OpenInbox", err)
			_, err = s.UpdateCard(ctx, id, func(*envelope.Card) { t.Error("update ran") })
			check("UpdateCard", err)
			_, err = s.Card(ctx, id)
			check("Card", err)
			st := store.New(s, nil) // agents' state records, kept by the facade on the backend's
			check("SaveState", st.SaveState(ctx, id, "sent", []byte("{}")))
			_, err = st.LoadState(ctx, id, "sent")
			check("LoadState", err)
			if !strings.HasPrefix(id, "_") { // "_x" is a store shelf (CheckShelf), not an agent's
				check("SaveRecord", s.SaveRecord(ctx, driver.Record{Shelf: id, Key: "sent"}, []byte("{}")))
				_, err = s.LoadRecord(ctx, driver.Record{Shelf: id, Key: "sent"})
				check("LoadRecord", err)
			}
			_, err = s.Depth(id)
			check("Depth", err)
			check("Pending", s.Pending(ctx, id, func(string, *envelope.Message, error) bool { return true }))
			if id != "" { // "" means every agent
				check("Watch", s.Watch(ctx, id, driver.WatchFuncs{}))
			}
		})
	}
	assert.Equal(t, before, snapshotTree(t, parent), "nothing in or beside the tree changed")

	longest := strings.Repeat("a", envelope.MaxAgentIDLen) // the limit itself is fine
	deliver(t, s, newMsg("alice", longest, "x"))
	assert.Contains(t, names(t, s.Root()), longest)
}

// TestStateRefusesSymlinkedAgentFolder: the records of an agent are not
// written or read through an agent folder or state folder that is a
// symlink out of the tree.
func TestStateRefusesSymlinkedAgentFolder(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"", stateDir} {
		t.Run("symlinked "+map[string]string{"": "agent", stateDir: "state"}[sub]+" folder", func(t *testing.T) {
			parent := t.TempDir()
			out, _ := outsideTree(t, parent)
			require.NoError(t, os.MkdirAll(filepath.Join(out, stateDir), 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(out, stateDir, "sent.json"), []byte(`{"outside":1}`), 0o600))
			require.NoError(t, os.WriteFile(filepath.Join(out, "sent.json"), []byte(`{"outside":2}`), 0o600))
			s, err := Open(Options{Root: filepath.Join(parent, "mailboxes"), NoSync: true})
			require.NoError(t, err)
			defer s.Close()
			if sub == "" {
				require.NoError(t, os.Symlink(out, agentPath(s, "evil")))
			} else {
				require.NoError(t, os.MkdirAll(agentPath(s, "evil"), 0o700))
				require.NoError(t, os.Symlink(out, agentPath(s, "evil", sub)))
			}
			before := snapshotTree(t, out)
			ctx := context.Background()
			st := store.New(s, nil)
			assert.ErrorContains(t, st.SaveState(ctx, "evil", "sent", []byte("{}")), "symlink")
			data, err := st.LoadState(ctx, "evil", "sent")
			assert.ErrorContains(t, err, "symlink")
			assert.Nil(t, data, "nothing read from outside the tree")
			assert.Equal(t, before, snapshotTree(t, out))
		})
	}
}
