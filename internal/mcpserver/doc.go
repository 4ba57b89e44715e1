// Package mcpserver is the mailbox as an MCP server (`switchboard mcp`):
// an MCP client (Claude Code, Codex, any agent that speaks MCP) becomes a
// mailbox agent. It registers a card (Server.Register, or the register
// tool), heartbeats while the server runs, and uses the mailbox through
// tools: list_agents, send_message, delegate_task, check_inbox, reply,
// update_task, thread and pending. list_agents, send_message,
// delegate_task, reply and update_task are the mailbox's tool set
// (package channels/mailbox/tools), the one the agent loop offers its
// model, written once; the others belong to the client's session. Its
// inbox is also the resource
// switchboard://inbox, which a client can subscribe to and is notified of
// when mail arrives.
//
// The server is built on the mailbox channel itself (mailbox.New with a
// bus the server consumes), so allowFrom, the loop rules, the limits and
// the delivery guarantees are the channel's: a message stays claimed until
// the client has taken it with check_inbox and acknowledged it (with
// ack, or implicitly at the next check_inbox); a task until it is ended
// with update_task; a request until it is answered with reply.
package mcpserver
