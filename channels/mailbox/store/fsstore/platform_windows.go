package fsstore

import (
	"os"
	"time"
)

// noFollow is zero: windows has no O_NOFOLLOW. Open refuses before any
// file is opened, so nothing relies on it.
const noFollow = 0

// checkPlatform refuses: windows lacks the flock and O_NOFOLLOW the
// folder store relies on.
func checkPlatform() error { return ErrUnsupportedPlatform }

// tryLock never locks on windows.
func tryLock(*os.File) (bool, error) { return false, ErrUnsupportedPlatform }

// releaseLock closes f (no lock is taken on windows).
func releaseLock(f *os.File) error { return f.Close() }

// touch sets the modification time of the file at path to t.
func touch(path string, t time.Time) error { return os.Chtimes(path, t, t) }
