// Package mcptools offers the tools of MCP servers to the agent loop, as
// nanobot does with its tools.mcpServers config: each configured server
// (a command over stdio, or a streamable HTTP URL) is connected when the
// host starts, its tools are added to the loop's registry under the name
// mcp_<server>_<tool> (so they cannot clash with the mailbox tools), a
// server that dies or cannot be reached is restarted with backoff while
// the model is told (ToolStatus) while a server is down, every call has
// a timeout, and the
// servers are stopped with the host. A failing server never stops the host.
package mcptools
