package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/switchboard-dev/switchboard/bus"
)

// Tool is something the model can call. Name must equal Spec().Name.
// Execute returns the result text the model reads; an error is shown to
// the model as "error: <message>", so it should say what went wrong and
// what to do instead.
type Tool interface {
	Name() string
	Spec() ToolSpec
	Execute(ctx context.Context, call Call) (string, error)
}

// Call is one invocation of a tool.
type Call struct {
	// ID is the model's id for the call.
	ID string
	// Name is the tool's name.
	Name string
	// Arguments is the JSON object of arguments the model wrote.
	Arguments string
	// Turn is the turn the call belongs to (never nil when the Loop calls).
	Turn *Turn
}

// Decode unmarshals the call's arguments into v. Empty arguments are read
// as an empty object.
func (c Call) Decode(v any) error {
	args := c.Arguments
	if args == "" {
		args = "{}"
	}
	if err := json.Unmarshal([]byte(args), v); err != nil {
		return fmt.Errorf("arguments of %s are not the JSON object its schema asks for: %w", c.Name, err)
	}
	return nil
}

// Inbound returns the message the turn handles (the zero value without a
// turn).
func (c Call) Inbound() bus.InboundMessage {
	if c.Turn == nil {
		return bus.InboundMessage{}
	}
	return c.Turn.Inbound
}

// Turn is the handling of one inbound message: what the tools of the turn
// may know about it.
type Turn struct {
	// Inbound is the message being handled.
	Inbound bus.InboundMessage
	// SessionKey is Inbound.SessionKey(), the conversation it belongs to.
	SessionKey string

	mu        sync.Mutex
	answered  bool
	usage     Usage
	concluded conclusions
}

// AddUsage adds the cost of one provider call to the turn's (the loop calls it after each call).
func (t *Turn) AddUsage(u Usage) {
	t.mu.Lock()
	t.usage = t.usage.Add(u)
	t.mu.Unlock()
}

// Usage is what the turn's provider calls have cost so far.
func (t *Turn) Usage() Usage {
	if t == nil {
		return Usage{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.usage
}

// NewTurn returns the turn that handles in.
func NewTurn(in bus.InboundMessage) *Turn {
	return &Turn{Inbound: in, SessionKey: in.SessionKey()}
}

// MarkAnswered tells the loop that a tool already answered the inbound
// message (for example finished the mailbox task it carries), so the
// turn's final text is recorded in the history but not sent.
func (t *Turn) MarkAnswered() {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.answered = true
	t.mu.Unlock()
}

// Answered reports whether MarkAnswered was called.
func (t *Turn) Answered() bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.answered
}
