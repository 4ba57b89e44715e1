// Package store is the contract between the mailbox channel and the places
// mailbox messages live: a shared folder (package fsstore), NATS JetStream,
// or memory. A Backend delivers messages to agents' inboxes, hands each
// agent its own inbox (Inbox: claim, acknowledge, quarantine) and keeps the
// registry of agent cards.
//
// Every backend gives the same guarantees, which the conformance suite in
// storetest checks: delivery is at least once and nothing acknowledged is
// redelivered; a message claimed but not acknowledged (its receiver
// crashed) comes back, marked Redelivered, when the inbox is opened again;
// messages from one sender arrive in the order they were sent; input that
// cannot be decoded is set aside with a reason and never stops the inbox;
// and no card update is lost when many processes update the registry.
package store
