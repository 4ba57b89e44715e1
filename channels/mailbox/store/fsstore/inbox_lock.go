package fsstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// lockName is the file in an agent's folder whose flock marks the owner of
// the inbox. The kernel drops the lock when the owner exits, however it
// exits, so a stale file is harmless.
const lockName = ".lock"

// lockInbox takes the exclusive flock on <dir>/.lock without waiting and
// writes this process's pid into the file. If another open file holds the
// lock (another process, or another Inbox of this one) it fails with an
// error wrapping driver.ErrInboxBusy that names the holder's pid. Closing
// the returned file releases the lock.
func lockInbox(dir, agentID string) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("lock inbox of %q: %s is a symlink; refusing to follow it", agentID, path)
		}
		return nil, fmt.Errorf("lock inbox of %q: %w", agentID, err)
	}
	locked, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock inbox of %q: %w", agentID, err)
	}
	if !locked {
		holder := readHolder(f)
		f.Close()
		return nil, fmt.Errorf("inbox of %q is open in %s (lock %s); stop that process first: %w",
			agentID, holder, path, driver.ErrInboxBusy)
	}
	if err := writePID(f, os.Getpid()); err != nil {
		// Without its pid the file would name a former holder (or none)
		// to whoever finds the inbox busy: give the lock back instead.
		f.Close()
		return nil, fmt.Errorf("lock inbox of %q: write pid: %w", agentID, err)
	}
	return f, nil
}

// pidFile is what writePID needs of the lock file.
type pidFile interface {
	Truncate(size int64) error
	WriteAt(b []byte, off int64) (int, error)
}

// writePID replaces the content of the lock file with pid and a newline.
func writePID(f pidFile, pid int) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(pid)+"\n"), 0)
	return err
}

// readHolder describes the process named in a held lock file.
func readHolder(f *os.File) string {
	buf := make([]byte, 32)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "another process"
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return "another process"
	}
	if pid == os.Getpid() {
		return fmt.Sprintf("this process (pid %d)", pid)
	}
	return fmt.Sprintf("process %d", pid)
}
