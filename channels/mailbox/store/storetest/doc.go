// Package storetest is the conformance suite every mailbox backend runs:
// one set of tests, written against store.Backend and the mailbox channel
// only, so that the filesystem, in-memory and NATS JetStream backends are
// held to the same contract. A backend's own test calls Run with a Factory
// that makes fresh, empty stores, and with Features that name what the
// backend lacks or adds.
//
// The store-level part checks delivery, order per sender, at-least-once
// delivery with duplicates handed out once, redelivery after a crash
// (an inbox closed without acknowledging), input that cannot be decoded
// set aside, the registry (cards, concurrent updates, offline detection),
// the state store, ErrInboxBusy, ErrClosed and context cancellation, and
// the optional abilities of store/optional.go: Browse (each message once,
// in its box), the audit log (Record, ReadAudit), SweepTask and Prune.
//
// The channel-level part runs mailbox channels on the backend, each on a
// Backend of its own as separate processes would, and checks delivery to
// the bus, order per sender and duplicates handed to the agent once, the
// task lifecycle, callback routing, allowFrom, the loop rules, presence,
// redelivery after a restart, threads (mailbox.Thread), replies owed
// (held requests, Archive, PendingReplies, FindPending, a reply stored by
// another process, overdue notices on a clock the test moves), a task's
// messages swept to its archive, the audit trail of a message, and group
// addressing (all, cap:, role:, any:, patterns, maxFanout, the loop rules
// per recipient).
//
// An optional ability the backend lacks is skipped only when its Features
// flag says so; a flag that contradicts the backend's type fails the
// suite. Features.ReadAhead lets Browse show a message the inbox took
// ahead of Next as claimed. Every wait is on an event or a value with a
// deadline (the audit log read by another process is read again until
// the expected entries are there, as a backend may store them a little
// later); nothing sleeps.
package storetest
