// Package tasks keeps the mailbox channel's two kinds of task record: the
// tasks this agent accepted and works on (Active: each holds its claimed
// request and a deadline timer on the channel's clock), and the tasks it
// delegated (Delegated: persisted through the store's StateStore, so that
// their updates can be routed back to the conversation they began in, and
// their deadlines watched, across restarts). Sweep moves an ended task's
// messages into its archive.
package tasks
