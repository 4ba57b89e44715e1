package driver

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// SetAside is one message an inbox set aside (quarantined as unreadable,
// refused by policy, or handed out too often), as a DeadLetters lists it.
type SetAside struct {
	// Agent is the agent whose inbox set it aside.
	Agent string
	// Ref names it for Redeliver and Discard (a file name, a sequence).
	Ref string
	// Reason says why it was set aside; Time is when.
	Reason string
	Time   time.Time
	// Message is the decoded message; nil when Err says why it cannot be
	// read (then Raw holds up to 4 KiB of what was found).
	Message *envelope.Message
	Err     error
	Raw     []byte
}

// DeadLetters is a Backend whose set-aside messages can be listed and
// dealt with by a person: what the console shows as dead letters.
type DeadLetters interface {
	// SetAside returns what agent's inbox set aside, oldest first.
	SetAside(ctx context.Context, agent string) ([]SetAside, error)
	// Redeliver puts copy, the copy of set-aside message ref that the
	// facade made (a fresh id: store.RedeliveryCopy says why), into
	// agent's inbox, where ref first arrived when the backend can tell,
	// and then removes ref.
	Redeliver(ctx context.Context, agent, ref string, copy *envelope.Message) error
	// Discard removes the set-aside message ref for good.
	Discard(ctx context.Context, agent, ref string) error
}

// ErrNotSetAside is wrapped by Redeliver and Discard when ref names no
// set-aside message of that agent.
var ErrNotSetAside = errors.New("no such set-aside message")

// DeadLetterAgents is a DeadLetters that can name the agents that have
// set-aside messages, registered or not (NATS reads the subjects of its
// stream). Stores without it are asked about the agents they know.
type DeadLetterAgents interface {
	// DeadLetterAgents returns the agents with set-aside messages, sorted.
	DeadLetterAgents(ctx context.Context) ([]string, error)
}
