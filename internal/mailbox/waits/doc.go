// Package waits builds the wait-for graph of the agents of a mailbox from
// the task records they keep on the store (each delegator's record of
// the tasks it sent, "sent-tasks"): task T at agent A waits on subtask U
// at agent B. A cycle in that graph (A waits on B, B waits on A) is a
// deadlock: no task in it can end until one of its subtasks does.
// `switchboard waits` shows the graph and its cycles, and breaks each
// cycle by failing the youngest wait's subtask (see package operator).
package waits
