// Command switchboard is the command line of the switchboard agent framework:
// it runs a host (run), sends and receives mailbox messages on behalf of an
// agent (send, recv), inspects the mailbox tree (inbox, agents, thread,
// watch, pending, log) and repairs it (doctor); demo runs the two-agent
// demo, mcp serves the mailbox to an MCP client. See docs/cli.md.
//
// It is the one program: main.go imports the modules switchboard ships
// (the LLM providers, the mailbox channel and its folder and NATS
// backends, the demo's Feishu stub), as caddy's cmd/caddy/main.go does;
// the library packages (host, internal/cli) import none of them. The
// demo's NATS server is another program, switchboard-natsd.
//
// Exit status: 0 on success, 1 on failure, 2 on bad usage; errors are one
// line on stderr.
package main
