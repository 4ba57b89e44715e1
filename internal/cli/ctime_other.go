//go:build !linux && !openbsd && !dragonfly && !solaris && !darwin && !freebsd && !netbsd

package cli

import (
	"io/fs"
	"time"
)

// changeTime is the file's modification time: on this system the CLI does
// not read an inode change time.
func changeTime(fi fs.FileInfo) time.Time { return fi.ModTime() }
