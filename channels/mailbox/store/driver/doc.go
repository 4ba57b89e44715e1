// Package driver is the contract between the mailbox store's facade
// (package store) and the backends that hold the messages: a shared folder
// (fsstore), NATS JetStream (natsstore) or memory (memstore). It is to
// package store what database/sql/driver is to database/sql: a backend
// implements it and registers itself with store.Register; everything
// else, the mailbox channel, the command line, the console and the
// metrics, goes through the facade and never sees a driver.
//
// A Backend has the primitives every backend must have: Deliver a message
// to an agent's inbox, hand each agent its own Inbox (Next, Ack,
// Quarantine), keep the registry of agent cards, and keep small Records
// (load, save, create-if-absent, delete, list). The facade builds on
// those what every backend shares (approvals, an agent's state records,
// presence from the cards, dead-letter bookkeeping), once for all.
//
// What a backend can do beyond them it offers as optional one-method
// abilities (optional.go: Browser, Watcher, Auditor, DeadLetters, ...),
// which the facade finds by type assertion: it uses one when the backend
// has it, and emulates it from the primitives or refuses with
// store.ErrNotSupported otherwise.
//
// Every backend gives the same guarantees, which the conformance suite in
// storetest checks: delivery is at least once and nothing acknowledged is
// redelivered; a message claimed but not acknowledged (its receiver
// crashed) comes back, marked Redelivered, when the inbox is opened again;
// messages from one sender arrive in the order they were sent; input that
// cannot be decoded is set aside with a reason and never stops the inbox;
// no card update is lost when many processes update the registry; and of
// several processes creating one record, exactly one succeeds.
package driver
