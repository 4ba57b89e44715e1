// Package operator holds what a person does to a mailbox from outside the
// agents, shared by the command line (switchboard dead, redeliver,
// archive, cancel, approvals) and the web console: list, redeliver and
// discard set-aside messages, archive an answered request, cancel a
// delegated task, and decide the approvals agents wait for. Each action
// is recorded in the store's audit log with the operator as its actor
// (store.EventOperator, store.EventApproval for decisions).
//
// It works on any *store.Store: the approvals every store keeps, and the
// optional abilities it needs (store.CanDeadLetters, store.CanBrowse),
// saying which one is missing when the store lacks it.
package operator
