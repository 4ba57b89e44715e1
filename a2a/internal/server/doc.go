// Package server is the A2A side of the gateway that exposes mailbox
// agents as A2A agents: for each fronted agent an Agent Card, generated
// from its registry card, and the SDK's request handler over JSON-RPC and
// HTTP+JSON, in A2A 1.0 and, through the SDK's compatibility layer, 0.3.
//
// A message that starts an A2A task becomes a mailbox task from the
// gateway's own mailbox identity to the agent; the task's updates come
// back to the gateway's inbox and are turned into A2A events (executor.go,
// translate.go). Both sides are durable on the mailbox's store: the A2A
// tasks are state records of the gateway (tasks.go), and an update stays
// claimed in the gateway's inbox until the event it became is stored, so
// a gateway killed mid-task finds every task as it was and every update
// not yet applied when it starts again, and resumes the tasks that are
// open (feed.go).
package server
