// Package replies is the mailbox channel's ledger of replies owed, both
// ways: the requests this agent sent and waits on (persisted through the
// store's StateStore, with their due times for overdue notices), and the
// requests it received and holds (claimed, not acknowledged) until it
// answers them.
package replies
