package audit

import (
	"io/fs"
	"os"
)

// noFollow is zero: windows has no O_NOFOLLOW.
const noFollow = 0

// checkPlatform refuses: a Writer relies on flock and O_NOFOLLOW.
func checkPlatform() error { return ErrUnsupportedPlatform }

// lockExclusive never locks on windows.
func lockExclusive(*os.File) error { return ErrUnsupportedPlatform }

// unlock has nothing to let go of on windows.
func unlock(*os.File) error { return nil }

// inode is unknown on windows.
func inode(fs.FileInfo) uint64 { return 0 }
