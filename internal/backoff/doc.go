// Package backoff is switchboard's one retry policy: exponential backoff
// with jitter, waited out on an injected clock (package clock), so that
// every retry loop (the channel manager's sends, the mailbox's receive
// loop, the MCP servers' restarts, the registry lock, the approval poll)
// spaces its tries the same way and its tests run on a manual clock
// without sleeping.
//
// A Policy says how the waits grow; a Backoff is one loop's sequence of
// waits under it (Next, Reset); Sleep waits one out unless the context
// ends first.
package backoff
