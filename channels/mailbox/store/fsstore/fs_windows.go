package fsstore

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// noFollow is zero: windows has no O_NOFOLLOW. Open refuses before any
// file is opened, so nothing relies on it.
const noFollow = 0

// quietMarks is false: every tick scans (the store does not run here).
const quietMarks = false

// checkPlatform refuses: windows lacks the flock and O_NOFOLLOW the
// folder store relies on.
func checkPlatform() error { return ErrUnsupportedPlatform }

// tryLock never locks on windows.
func tryLock(*os.File) (bool, error) { return false, ErrUnsupportedPlatform }

// releaseLock closes f (no lock is taken on windows).
func releaseLock(f *os.File) error { return f.Close() }

// touch sets the modification time of the file at path to t.
func touch(path string, t time.Time) error { return os.Chtimes(path, t, t) }

// The folder store does not run on windows (checkPlatform refuses); these
// path-based versions keep the package building there.

// renamePaths renames oldpath to newpath unless newpath exists.
func renamePaths(oldpath, newpath string) error {
	if _, err := os.Lstat(newpath); err == nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.Rename(oldpath, newpath)
}

// heldDir is a folder, named by path on this system.
type heldDir struct{ path string }

// openHeldDir checks that path is a folder.
func openHeldDir(path string) (*heldDir, error) {
	if err := checkDir(path); err != nil {
		return nil, err
	}
	return &heldDir{path: path}, nil
}

func (d *heldDir) close() error   { return nil }
func (d *heldDir) syncNow() error { return syncDir(d.path) }
func (d *heldDir) stale() bool    { return checkDir(d.path) != nil }

// moveAt renames src/name to dst/target unless target exists.
func moveAt(src *heldDir, name string, dst *heldDir, target string) error {
	return renamePaths(filepath.Join(src.path, name), filepath.Join(dst.path, target))
}

// readHeld reads dir/name like readMessage; links is 1 (not counted here).
func readHeld(dir *heldDir, name string, limit int64) (msg *envelope.Message, links uint64, err error) {
	msg, err = readMessage(filepath.Join(dir.path, name), limit)
	return msg, 1, err
}

// listenShare does not share on windows, where the folder store does not
// run.
func listenShare(string) (*net.UnixListener, error) { return nil, errNoShare }

// dialShareConn does not share on windows.
func dialShareConn(string) (net.Conn, error) { return nil, errNoShare }
