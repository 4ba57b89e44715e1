// Package route is the mailbox's addressing and loop rules: which agents
// a target names (ParseTarget, Resolve: one agent, all, a pattern, the
// holders of a capability or role, the least loaded of them), how a
// message is composed from a Request (Compose: trace, ttl, thread, hop
// count), and the anti-loop checks of both directions: a new send or
// forward appends the sender to the trace and spends a hop of ttl and is
// refused when the target is in the trace or the ttl is spent; a reply is
// never refused as a loop but counts toward the thread's hop cap
// (Original, Compose); on receipt, a message that is not a reply and has
// already passed through the receiver is refused (IsLoop). A task also
// carries its place in its task tree (task_path): a task that brings the
// same work back to an agent of the tree, or makes it too deep, is refused
// (meta.CheckTaskPath, the task tree). The errors of the guard rails on sends
// (LimitError) are here too, for the agent loop to read.
package route
