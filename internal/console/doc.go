// Package console is the operator's web console that `switchboard
// console` serves: agents, conversations, delegation trees, who talks to
// whom, set-aside messages, replies owed and the audit log of a mailbox
// store, updated live from the store's watch, plus a few operator actions
// (send, reply, cancel, redeliver, discard, archive) that need the
// console's token. Its page is hand-written HTML, CSS and JavaScript
// embedded in the binary. Only the command line imports it.
package console
