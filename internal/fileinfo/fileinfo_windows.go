//go:build windows

package fileinfo

import "io/fs"

// NoFollow is zero: windows has no O_NOFOLLOW. The folder mailbox, which
// uses it, refuses to open on windows.
const NoFollow = 0

// Owner knows no owner on windows.
func Owner(fs.FileInfo) (int, bool) { return 0, false }

// Links is 1 on windows, where the folder mailbox does not run.
func Links(fs.FileInfo) uint64 { return 1 }
