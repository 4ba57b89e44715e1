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
// the state store, ErrInboxBusy, ErrClosed and context cancellation. The
// channel-level part runs two mailbox channels on the backend and checks
// delivery to the bus, the task lifecycle, callback routing, allowFrom and
// the loop rules.
//
// Every wait is on an event or a value with a deadline; nothing sleeps.
package storetest
