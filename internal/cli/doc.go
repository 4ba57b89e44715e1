// Package cli implements the switchboard command line (cmd/switchboard):
// one file per command, built with cobra.
//
// The command line is a contract for scripts (see DESIGN.md and
// docs/cli.md): command and flag names, --json output of one object per
// line with snake_case fields, exit status 0 on success, 1 on failure and 2
// on bad usage, and a one-line error on stderr. Main returns the exit
// status instead of exiting, so the commands can be tested in process.
//
// This package links none of the large libraries; the commands that need
// them reach them through Extras (filled by package full, linked only into
// cmd/switchboard-full), and cmd/switchboard hands those command lines to
// switchboard-full (Env.Delegate). See extras.go.
package cli
