// Package recentids keeps the last ids added, as a set: a receiver's
// memory of what it handled lately, so that a message or an event that
// comes again is known. Its memory grows as ids come, up to its size, and
// then the newest id pushes out the oldest.
package recentids
