// Package mcptools offers the tools of MCP servers to the agent loop, as
// nanobot does with its tools.mcpServers config: each configured server
// (a command over stdio, or a streamable HTTP URL) is connected in the
// background when the host starts, its tools are added to the loop's
// registry under the name mcp_<server>_<tool> (so they cannot clash with
// the mailbox tools), a server that dies or cannot be reached is
// restarted with backoff, and while it is down the model is told so
// (Servers is the loop's ToolStatus: a note with each turn, and an error
// naming the reason from its tools). Every call has a timeout, and the
// servers are stopped with the host. A failing server never stops the host.
package mcptools
