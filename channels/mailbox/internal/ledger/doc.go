// Package ledger keeps the mailbox channel's books of what its agent owes
// and awaits, both ways, and when each is due:
//
//   - the tasks this agent accepted and works on (Active: each holds its
//     claimed request and a deadline timer on the channel's clock); Sweep
//     moves an ended task's messages into its archive;
//   - the tasks it delegated (Delegated: persisted through the store's
//     StateStore, so that their updates can be routed back to the
//     conversation they began in, their deadlines watched, and a task its
//     worker does not take up or loses offered again, across restarts);
//   - the replies owed (Replies): the requests this agent sent and waits
//     on (persisted, with their due times for overdue notices), and the
//     requests it received and holds (claimed, not acknowledged) until it
//     answers them.
//
// Watch waits for the earliest of a changing set of due times on a
// clock.Clock: the deadlines of delegated tasks, the acceptance of tasks
// sent, and the due times of replies this agent waits for.
package ledger
