// Package testkit is what the project's tests share: the limits that bound
// every wait (WaitLimit for one event, For for a known amount of work, both
// multiplied by SWITCHBOARD_TEST_TIMEOUT_SCALE), a log of values a test can
// wait on, the recorder of a mailbox store's events, and helpers for tests
// that run real processes. Time a test moves by hand is clock.Manual.
package testkit
