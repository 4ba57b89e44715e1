// Package store is the mailbox store: the one facade through which the
// mailbox channel, the command line, the console, the MCP server and the
// metrics use the places mailbox messages live, as database/sql is for
// its drivers. Backends (a shared folder, package fsstore; NATS
// JetStream, natsstore; memory, memstore) implement the contract of
// package driver and register themselves by name (Register); a program
// picks them by import and opens one with Open, which returns a *Store.
//
// The Store owns every check of what its backend can do beyond the
// primitives each backend has (deliver, inbox next/ack/set aside, cards,
// records). A consumer calls a method and never asserts a backend's
// abilities: where the backend has the ability, the Store uses it; where
// it lacks it, the Store emulates it from the primitives (Skim, Pending,
// Depths, Backlog and Fetch through Browse; Ping by reading the cards;
// Presence from the cards' heartbeats; AckPipelined with Ack) or fails
// with an error wrapping ErrNotSupported that names what is missing. Has
// says which, for a consumer that picks a strategy up front.
//
// Features built on the primitives are written here once for every
// backend: the approvals agents wait for (Approvals, an
// agent.ApprovalBook on the records), an agent's state records
// (LoadState, SaveState), presence, and the bookkeeping of set-aside
// messages (SetAside of every agent, Redeliver's copy).
//
// The guarantees every backend gives, which the conformance suite in
// storetest checks, are described in package driver.
package store
