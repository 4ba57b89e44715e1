// Package fileinfo reads what the folder mailbox checks of a file beyond
// fs.FileInfo — its owner, its hard links — and the open flag that refuses
// a symlink, behind build tags, for the folder store and the command line's
// doctor alike.
package fileinfo
