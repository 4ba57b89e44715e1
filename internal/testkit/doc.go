// Package testkit is what the project's tests share: the wait limit that
// bounds every wait, a log of values a test can wait on, the recorder of a
// mailbox store's events, and helpers for tests that run real processes.
// Time a test moves by hand is clock.Manual.
package testkit
