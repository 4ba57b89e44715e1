package main

import (
	"context"
	"time"
)

// backend is the mailbox store the agents run on, as the bench drives it.
type backend interface {
	// describe says what the agents run on, for the report.
	describe() string
	// agentArgs are the arguments of agent i's `switchboard` process.
	agentArgs(i int) []string
	// env is added to the agents' environment.
	env() []string
	// registered counts the agents' cards in the registry.
	registered(ctx context.Context) (int, error)
	// offline counts the cards that say offline, and of them those whose
	// offline waits in a queue for the registry's next writer.
	offline(ctx context.Context) (offline, queued int, err error)
	// writes counts the registry's writes so far, and says what it counts;
	// -1 when it cannot.
	writes() (int, string)
	// send delivers a message with id and text to agent to.
	send(ctx context.Context, to, id, text string) error
	// broadcastArgs are the arguments of a `switchboard send` of text to
	// every agent.
	broadcastArgs(text string) []string
	// rawLatency measures the raw equivalent of a send, one at a time,
	// and says what it measured.
	rawLatency(ctx context.Context, self string, sends int, gap time.Duration) ([]time.Duration, string, error)
	// close releases what the backend holds.
	close()
}

// requestCounter is a backend that counts the requests its server takes.
type requestCounter interface {
	// requests counts the requests so far, in all and by kind, and says
	// what it counts.
	requests() (int64, map[string]int, string)
}
