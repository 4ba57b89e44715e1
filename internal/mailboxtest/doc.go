// Package mailboxtest is the suite the mailbox channel passes on every
// backend: it runs mailbox channels over a store made by a
// storetest.Factory, each on a Backend of its own as separate processes
// would, and checks delivery to the bus, order per sender and duplicates
// handed to the agent once, the task lifecycle, callback routing,
// allowFrom, the loop rules, presence, redelivery after a restart, threads
// (view.Thread), replies owed (held requests, Archive, PendingReplies,
// view.FindPending, a reply stored by another process, overdue notices on
// a clock the test moves), a task's messages swept to its archive, the
// audit trail of a message, and group addressing (all, cap:, role:, any:,
// patterns, maxFanout, the loop rules per recipient).
//
// It sits above the channel (it imports it), so that neither the store
// contract nor its conformance suite (storetest) depend on the channel.
// Its own test runs it on the folder, in-memory and NATS backends.
package mailboxtest
