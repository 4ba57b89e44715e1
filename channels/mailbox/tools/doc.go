// Package tools is the mailbox's tool set, written once for the two kinds
// of caller that use the mailbox through tools: the model of an agent
// loop (the mailbox channel offers list_agents, delegate_task,
// send_message and reply to the loop through its Tools) and an MCP client
// (`switchboard mcp` registers them, and update_task, with the MCP SDK).
//
// Each tool is a Tool[In]: a name, a description and a Run over typed
// arguments In, whose JSON schema is derived from the type (as the MCP SDK
// does, with github.com/google/jsonschema-go). What differs between the
// callers is a parameter of the call, a Caller: a loop's turn (the message
// it handles is the one reply answers, the one a delegated task or a sent
// message continues, and its conversation is where the task's updates
// come back), the messages handed to an MCP client (which reply names by
// id), whether only registered agents may be written to, and how the
// result is shown (Result: a sentence for a model, JSON for an MCP
// client).
//
// Errors (an unknown agent, a refused loop, no agent with a capability, a
// send refused by a guard rail, with advice on how long to wait) are
// returned as errors: the loop shows them to the model as "error: ...",
// the MCP SDK as a tool result marked as an error.
//
// The package sits below the mailbox channel: it uses the channel through
// Mailbox, which *mailbox.Channel implements.
package tools
