// Package due waits for the earliest of a changing set of due times on a
// clock.Clock: the deadlines of delegated tasks and the due times of
// replies this agent waits for.
package due
