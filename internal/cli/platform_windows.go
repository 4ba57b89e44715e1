package cli

// noFollow is zero: windows has no O_NOFOLLOW. The folder mailbox, whose
// files the CLI reads with it, refuses to open on windows.
const noFollow = 0
