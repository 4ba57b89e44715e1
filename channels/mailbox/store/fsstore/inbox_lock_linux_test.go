package fsstore

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLockInboxFailsWhenPIDCannotBeWritten puts a FIFO where the lock file
// goes: linux opens and flocks it, but cannot truncate it. lockInbox must
// say so and give the lock back rather than hold an inbox whose lock file
// names no one.
func TestLockInboxFailsWhenPIDCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, lockName)
	require.NoError(t, syscall.Mkfifo(path, 0o600))

	f, err := lockInbox(dir, "bob")
	require.Error(t, err)
	require.Nil(t, f)
	require.Contains(t, err.Error(), "write pid")

	other, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer other.Close()
	locked, err := tryLock(other)
	require.NoError(t, err)
	require.True(t, locked, "the failed lockInbox released its lock")
}

// TestCloseReleasesTheLockHeldByACopy: a copy of the lock's descriptor
// (what a child process another goroutine is starting holds until its
// exec closes it) does not keep the inbox locked once it is closed.
func TestCloseReleasesTheLockHeldByACopy(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "bob")
	copied, err := syscall.Dup(int(in.lock.Fd()))
	require.NoError(t, err)
	defer syscall.Close(copied)
	require.NoError(t, in.Close())
	again, err := s.OpenInbox(context.Background(), "bob")
	require.NoError(t, err, "the copy still held the lock")
	require.NoError(t, again.Close())
}
