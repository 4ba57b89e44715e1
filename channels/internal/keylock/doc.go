// Package keylock lets one goroutine at a time hold a key, as the
// platform channels need for a message id: an event a platform delivers
// again while the first delivery is still being handled (its files
// downloading, its journal line being written) waits for it, and then
// finds the message journaled; neither delivery is acknowledged before
// the message is safe.
package keylock
