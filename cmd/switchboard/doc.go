// Command switchboard is the command line of the switchboard agent framework:
// it runs a host (run), sends and receives mailbox messages on behalf of an
// agent (send, recv), inspects the mailbox tree (inbox, agents, thread,
// watch, pending, log) and repairs it (doctor); demo runs the two-agent
// demo. See docs/cli.md.
//
// Exit status: 0 on success, 1 on failure, 2 on bad usage; errors are one
// line on stderr.
package main
