package store

import (
	"cmp"
	"context"
	"errors"
	"maps"
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
	// Redeliver puts a copy of the set-aside message ref back into
	// agent's inbox (see RedeliveryCopy) and removes the set-aside one.
	// A message that cannot be decoded is refused.
	Redeliver(ctx context.Context, agent, ref string) error
	// Discard removes the set-aside message ref for good.
	Discard(ctx context.Context, agent, ref string) error
}

// ErrNotSetAside is wrapped by Redeliver and Discard when ref names no
// set-aside message of that agent.
var ErrNotSetAside = errors.New("no such set-aside message")

// MetaRedeliveredFrom is the metadata key of a redelivered copy that names
// the id of the message it copies.
const MetaRedeliveredFrom = "redelivered_from"

// RedeliveryCopy returns the copy of set-aside message m that Redeliver
// stores: the same message under a fresh id, because a receiver drops an
// id it has handled and setting a message aside counts as handling it.
// The thread (the original id when m started it), the task, reply_to and
// the trace stay; metadata redelivered_from names the original id.
func RedeliveryCopy(m *envelope.Message) *envelope.Message {
	c := *m
	c.ID = envelope.NewID()
	c.ThreadID = cmp.Or(m.ThreadID, m.ID)
	c.Metadata = maps.Clone(m.Metadata)
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	c.Metadata[MetaRedeliveredFrom] = m.ID
	return &c
}

// DeadLetterAgents is a DeadLetters that can name the agents that have
// set-aside messages, registered or not (NATS reads the subjects of its
// stream). Stores without it are asked about the agents they know.
type DeadLetterAgents interface {
	// DeadLetterAgents returns the agents with set-aside messages, sorted.
	DeadLetterAgents(ctx context.Context) ([]string, error)
}
