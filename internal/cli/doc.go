// Package cli implements the switchboard command line (cmd/switchboard):
// one file per command, built with cobra.
//
// The command line is a contract for scripts (see DESIGN.md and
// docs/cli.md): command and flag names, --json output of one object per
// line with snake_case fields, exit status 0 on success, 1 on failure and 2
// on bad usage, and a one-line error on stderr. Main returns the exit
// status instead of exiting, so the commands can be tested in process.
//
// Like host, this package imports no provider, no store backend but the
// folder store (which --root opens) and no channel type: the program that
// calls Main imports the ones it ships (cmd/switchboard/main.go), and
// run, config check, the demo's agents and the mailbox commands on another
// backend find them in their registries.
package cli
