package fsstore

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/google/uuid"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/fileinfo"
	"github.com/switchboard-dev/switchboard/internal/mailbox/audit"
)

// Open opens the mailbox tree at opts.Root, creating the folder (mode 0700)
// if it is missing. It refuses a root that is writable by group or others
// or owned by another user, because anyone who can write there can read
// and forge every agent's mail. Symlinks in the root's own path are
// resolved once here; nothing below the root is ever followed. On windows
// it fails with ErrUnsupportedPlatform.
func Open(opts Options) (*Store, error) {
	if err := checkPlatform(); err != nil {
		return nil, err
	}
	opts.setDefaults()
	if opts.Root == "" {
		return nil, errors.New("open mailbox store: Options.Root is required")
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("open mailbox store: %w", err)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("open mailbox store: create root: %w", err)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, fmt.Errorf("open mailbox store: %w", err)
	}
	if err := checkRoot(root); err != nil {
		return nil, err
	}
	st := &Store{root: root, opts: opts}
	switch {
	case opts.NoIndex:
	case opts.IndexDir != "":
		st.indexDir = opts.IndexDir
	default:
		st.indexDir = defaultIndexDir(root)
	}
	if opts.AuditLog {
		if st.audit, err = audit.Open(root, audit.Options{
			MaxBytes: opts.AuditMaxBytes, Keep: opts.AuditKeep,
			OnError: func(err error) { opts.Logger.Warn("audit log not written", "err", err) },
		}); err != nil {
			return nil, fmt.Errorf("open mailbox store: %w", err)
		}
	}
	return st, nil
}

// checkRoot refuses a root that others could write to.
func checkRoot(root string) error {
	fi, err := os.Lstat(root)
	if err != nil {
		return fmt.Errorf("open mailbox store: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("open mailbox store: root %s is not a folder", root)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("mailbox root %s is writable by group or others (mode %04o); run: chmod 700 %s",
			root, perm, root)
	}
	if owner, ok := fileinfo.Owner(fi); ok {
		if uid := os.Geteuid(); owner != uid {
			return fmt.Errorf("mailbox root %s is owned by uid %d, not by you (uid %d); run: chown %d %s && chmod 700 %s",
				root, owner, uid, uid, root, root)
		}
	}
	return nil
}

// Close closes the store and every inbox opened from it. Later calls fail
// with driver.ErrClosed. Close is idempotent.
func (s *Store) Close() error {
	first, err := s.inboxes.Close()
	if !first {
		return nil
	}
	errs := []error{err}
	if s.audit != nil {
		errs = append(errs, s.audit.Close())
	}
	return errors.Join(errs...)
}

// checkOpen returns driver.ErrClosed once the store is closed.
func (s *Store) checkOpen() error { return s.inboxes.Err() }

// agentDir validates agentID and returns <root>/<agent>. It does not touch
// the disk.
func (s *Store) agentDir(agentID string) (string, error) {
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return "", err
	}
	return filepath.Join(s.root, agentID), nil
}

// ensureAgentDirs creates <root>/<agent> and the given sub-folders (mode
// 0700) as needed, refusing any of them that exists as a symlink or as
// something other than a folder. It returns the agent folder.
func (s *Store) ensureAgentDirs(agentID string, subs ...string) (string, error) {
	dir, err := s.agentDir(agentID)
	if err != nil {
		return "", err
	}
	if err := ensureDir(dir); err != nil {
		return "", err
	}
	for _, sub := range subs {
		if err := ensureDir(filepath.Join(dir, sub)); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// ensureDir creates path as a 0700 folder, or checks that what is there is
// a real folder (not a symlink to one) that only this user can write to
// (checkPrivate). A folder that is there is only looked at: mkdir locks
// the parent folder even when it fails with EEXIST, and a thousand agents
// starting at once on one root made the root's lock most of their start.
func ensureDir(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create %s: %w", path, err)
		}
		fi, err = os.Lstat(path)
	}
	if err != nil {
		return err
	}
	if err := checkDirInfo(path, fi); err != nil {
		return err
	}
	return checkPrivateInfo(path, fi)
}

// checkDir fails unless path is a folder and not a symlink.
func checkDir(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return checkDirInfo(path, fi)
}

// checkDirInfo is checkDir on what an Lstat of path returned.
func checkDirInfo(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symlink; the mailbox tree never follows symlinks (remove it)", path)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder (mode %s)", path, fi.Mode().Type())
	}
	return nil
}

// tmpSuffix ends the names of files still being written: nanobot's
// "X.msg.tmp" in inbox/ and the temp files of writeFileAtomic. Readers
// leave them alone.
const tmpSuffix = ".tmp"

// entryKind is what a name in inbox/ or claimed/ is taken for.
type entryKind int

const (
	entryMessage entryKind = iota // a message file name: claim and read it
	entryWriting                  // a write in progress: leave it alone
	entryForeign                  // anything else: quarantine it
)

// classify decides by name alone; the type of the file is checked after
// the claim, through the claimed file itself.
func classify(name string) entryKind {
	switch {
	case strings.HasSuffix(name, envelope.MessageSuffix):
		return entryMessage
	case strings.HasSuffix(name, tmpSuffix):
		return entryWriting
	}
	return entryForeign
}

// randHex returns 2n random hex digits.
func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b)
}

// withSuffix makes name distinct while keeping it a message name (or the
// same kind of name) and sorting just after the original.
func withSuffix(name string) string {
	suffix := "_r" + randHex(4)
	if base, ok := strings.CutSuffix(name, envelope.MessageSuffix); ok {
		return base + suffix + envelope.MessageSuffix
	}
	return name + suffix
}

// moveFree renames dir/name into dstDir under name, or under a suffixed
// name if dstDir already holds that name, so that nothing is replaced:
// each try is one no-replace rename (renameNoReplace), no lookup first.
// It returns the name used.
func moveFree(dir, name, dstDir string) (string, error) {
	return freeName(name, dstDir, func(target string) error {
		return renamePaths(filepath.Join(dir, name), filepath.Join(dstDir, target))
	})
}

// moveFreeAt is moveFree relative to held folders.
func moveFreeAt(src *heldDir, name string, dst *heldDir) (string, error) {
	return freeName(name, dst.path, func(target string) error { return moveAt(src, name, dst, target) })
}

// freeName calls move with name, then with suffixed names while the target
// exists, and returns the name that move took.
func freeName(name, dstDir string, move func(target string) error) (string, error) {
	target := name
	for range 8 {
		err := move(target)
		if err == nil {
			return target, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		target = withSuffix(name)
	}
	return "", fmt.Errorf("move %s: no free name in %s", name, dstDir)
}

// readMessage reads and decodes the message file at path without following
// a symlink, without blocking on a FIFO and without reading more than limit
// bytes. The error text is the reason a receiver quarantines the file; an
// error wrapping fs.ErrNotExist means the file is gone.
func readMessage(path string, limit int64) (*envelope.Message, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", typeName(fi.Mode()))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if errors.Is(err, syscall.ELOOP) {
			return nil, errors.New("not a regular file (symlink)")
		}
		return nil, fmt.Errorf("unreadable: %w", err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, fmt.Errorf("unreadable: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", typeName(fi.Mode()))
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("oversized: %d bytes > %d", fi.Size(), limit)
	}
	return envelope.Decode(f, limit)
}

// typeName names a non-regular file type for a quarantine reason.
func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return m.Type().String()
}

// writeFileAtomic writes data to a uniquely named temp file beside path
// (created exclusively, mode 0600), optionally fsyncs it, and renames it
// over path, so readers see the old or the new content, never a mix.
func writeFileAtomic(path string, data []byte, sync bool) error {
	dir := filepath.Dir(path)
	tmp := filepath.Join(dir, "."+filepath.Base(path)+"."+uuid.NewString()+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			f.Close()
			os.Remove(tmp)
			return err
		}
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	if sync {
		return syncDir(dir)
	}
	return nil
}

// syncDir fsyncs a folder so that a rename or link in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// readAllCapped reads r whole, failing if it holds more than limit bytes.
func readAllCapped(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("over %d bytes", limit)
	}
	return data, nil
}

// direntKind is the kind of a folder entry, as eachDirent reports it.
type direntKind uint8

const (
	direntOther direntKind = iota // a symlink, a device, ...: never a message
	direntFile                    // a regular file
	direntDir                     // a folder
)

// isMessageName is classify(name) == entryMessage, on bytes.
func isMessageName(name []byte) bool {
	return bytes.HasSuffix(name, []byte(envelope.MessageSuffix))
}
