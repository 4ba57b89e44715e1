package testkit

import "time"

// The share of one unit of work in a limit. A wait for a known amount of
// work (many messages, many processes, many commands) is allowed
// WaitLimit plus each unit's share (see For), so that a test draining
// 10,000 messages is not held to the limit of one, while a wait for one
// event that never comes still fails within WaitLimit. The shares are what
// a unit may take on a 2-core machine shared by several builds (load 50 and
// more), with the race detector on; Scale multiplies them too.
const (
	// PerMessage is one message sent, received and acknowledged through a
	// real store (files with fsync, or an embedded NATS server).
	PerMessage = 100 * time.Millisecond
	// PerProcess is one process of the program (built with -race) started,
	// ready and stopped: the test binary's own or the switchboard binary.
	PerProcess = 5 * time.Second
	// PerStep is one step of a test that walks through many: a command run
	// to its end, a request to a server and its answer, a browser action.
	PerStep = 2 * time.Second
)

// Messages is the share of n messages.
func Messages(n int) time.Duration { return time.Duration(n) * PerMessage }

// Processes is the share of n processes.
func Processes(n int) time.Duration { return time.Duration(n) * PerProcess }

// Steps is the share of n steps.
func Steps(n int) time.Duration { return time.Duration(n) * PerStep }

// For returns the limit of a wait for work (a sum of Messages, Processes
// and Steps): WaitLimit plus work times Scale.
//
//	ctx := testkit.CtxFor(t, testkit.Messages(500)+testkit.Processes(2))
func For(work time.Duration) time.Duration { return WaitLimit + Scaled(work) }
