// Package agent is the vocabulary that the agent loop shares with what
// plugs into it: a Provider (a chat model) answers a Request with a
// Response; a Tool is called with a Call in a Turn; a Hook observes turns,
// provider calls and tool calls (metrics, traces, budgets).
//
// It imports only the bus (and, for NewTool's schemas, the JSON schema
// library the MCP SDK uses), so that providers, tools and the channels
// that offer tools or hooks to the agent (the mailbox offers its tools,
// its budget keeper, its approval book and the agent's Profile) depend on
// it and not on the loop: package agentloop runs them, and host wires
// what the channels offer into it.
package agent
