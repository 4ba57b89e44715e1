package fsstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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
// (checkPrivate).
func ensureDir(path string) error {
	err := os.Mkdir(path, 0o700)
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := checkDir(path); err != nil {
		return err
	}
	return checkPrivate(path)
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
