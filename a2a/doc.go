// Package a2a is switchboard's gateway to the Agent2Agent protocol (A2A),
// both ways, on the official Go SDK (github.com/a2aproject/a2a-go/v2):
//
//   - serve: mailbox agents become A2A agents. Each agent named in
//     channels.a2a.serve gets an Agent Card made from its registry card and
//     the SDK's JSON-RPC and HTTP+JSON endpoints (A2A 1.0, and 0.3 through
//     the SDK's compatibility layer) under /agents/<id>; a message from an
//     A2A client becomes a mailbox task from the gateway's own mailbox
//     identity (channels.a2a.agentId) to the agent, and its task_updates
//     become the A2A task's states, artifacts and messages;
//   - connect: each A2A agent named in channels.a2a.connect becomes a
//     mailbox agent, with its skills as capabilities: a task delegated to
//     it is sent to it over A2A, and its states come back as task_updates.
//
// Both are durable on the mailbox's store, folder or NATS, and both keep
// the mailbox's guard rails and the W3C trace across the hop. docs/a2a.md
// describes the configuration, the state mapping and the guarantees.
//
// The gateway registers itself as the channel type "a2a", so that a host
// whose config enables channels.a2a runs it beside its agent (the channel
// manager starts and stops it; it sends nothing to chats), and
// `switchboard a2a serve` runs it alone. It is not a chat platform: it is
// a mailbox participant, as the MCP server is.
package a2a
