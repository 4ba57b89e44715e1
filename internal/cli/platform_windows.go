package cli

import "io/fs"

// noFollow is zero: windows has no O_NOFOLLOW. The folder mailbox, whose
// files the CLI reads with it, refuses to open on windows.
const noFollow = 0

// ownerOf knows no owner on windows.
func ownerOf(fs.FileInfo) (int, bool) { return 0, false }

// linkCount is 1 on windows, where the folder mailbox does not run.
func linkCount(fs.FileInfo) uint64 { return 1 }
