// Package storetest is the conformance suite every mailbox backend runs:
// one set of tests, written against the driver contract (package
// store/driver) and the facade over it (store.Store) only, so that the
// filesystem, in-memory and NATS JetStream backends are held to the same
// contract. A backend's own test calls Run with a Factory
// that makes fresh, empty stores, and with Features that name what the
// backend lacks or adds.
//
// The store-level part checks delivery, order per sender, at-least-once
// delivery with duplicates handed out once, redelivery after a crash
// (an inbox closed without acknowledging), input that cannot be decoded
// set aside, the registry (cards, concurrent updates, offline detection),
// the state store and the records under it (driver.Records: load, save,
// create-if-absent among many creators, delete, list), the approvals the
// facade keeps on them, ErrInboxBusy, ErrClosed and context cancellation,
// and the optional abilities of driver/optional.go: Browse (each message
// once, in its box), the audit log (Record, ReadAudit), SweepTask and
// Prune.
//
// The channel running over each backend has a suite of its own,
// channels/mailboxtest, built on this one's Factory, Features and checks
// (Has, Need, AssertBoxes, WaitAudit), so that this package needs nothing
// above the store.
//
// An optional ability the backend lacks is skipped only when its Features
// flag says so; a flag that contradicts the backend's type (as
// store.Store.Has asserts it) fails the suite. Features.ReadAhead lets Browse show a message the inbox took
// ahead of Next as claimed. Every wait is on an event or a value with a
// deadline (the audit log read by another process is read again until
// the expected entries are there, as a backend may store them a little
// later); nothing sleeps.
package storetest
