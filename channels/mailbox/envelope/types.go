package envelope

import "slices"

// Type is a message's kind.
type Type string

// The message types of seed 001.
const (
	TypeMessage    Type = "message"     // a notification, question or chat
	TypeTask       Type = "task"        // a work request that needs a result
	TypeTaskUpdate Type = "task_update" // a status change of a task sent earlier
)

// Valid reports whether t is one of the known message types.
func (t Type) Valid() bool {
	return t == TypeMessage || t == TypeTask || t == TypeTaskUpdate
}

// TaskState is where a task is in its lifecycle (seed 001, after A2A).
type TaskState string

// The task states. Completed, failed, rejected and canceled are terminal.
const (
	StatePending   TaskState = "pending"
	StateAccepted  TaskState = "accepted"
	StateWorking   TaskState = "working"
	StateCompleted TaskState = "completed"
	StateFailed    TaskState = "failed"
	StateRejected  TaskState = "rejected"
	StateCanceled  TaskState = "canceled"
)

var taskStates = []TaskState{StatePending, StateAccepted, StateWorking,
	StateCompleted, StateFailed, StateRejected, StateCanceled}

// Valid reports whether s is a known task state.
func (s TaskState) Valid() bool { return slices.Contains(taskStates, s) }

// Terminal reports whether a task in state s is over.
func (s TaskState) Terminal() bool {
	switch s {
	case StateCompleted, StateFailed, StateRejected, StateCanceled:
		return true
	}
	return false
}

// PartType is the kind of one content part.
type PartType string

// The content part kinds (A2A message parts).
const (
	PartText PartType = "text"
	PartData PartType = "data"
	PartFile PartType = "file"
)

// Content holds a message's parts.
type Content struct {
	Parts []Part `json:"parts"`
}

// Task is the task block of a task or task_update message.
type Task struct {
	ID       string    `json:"id"`
	State    TaskState `json:"state"`
	Deadline *Time     `json:"deadline,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	// Budget is what the task may still spend on models, it and every
	// task delegated from it (switchboard's addition; nanobot ignores it).
	Budget *Budget `json:"budget,omitempty"`
	// Used is what the task has spent on models, it and the tasks
	// delegated from it, in the units of Budget (switchboard's addition):
	// a worker's final task_update reports it, with Budget then saying
	// what is left, so that its delegator charges it to its own task.
	Used *Budget `json:"used,omitempty"`
}

// Budget bounds what a task may spend on models: Tokens (input plus
// output) and, optionally, Cost (in the currency of the agents' prices,
// US dollars by convention). A zero field sets no bound. It travels in
// the task block: each agent that works on the task counts its usage
// against it, and a task delegated from it carries what is left.
type Budget struct {
	Tokens int64   `json:"tokens,omitempty"`
	Cost   float64 `json:"cost,omitempty"`
}

// BudgetExhausted starts the reason of a task that failed because its
// budget was spent; a task whose subtask failed so fails with the same
// reason, up to the conversation its tree began in.
const BudgetExhausted = "budget exhausted"

// Bounded reports whether b sets any bound.
func (b *Budget) Bounded() bool { return b != nil && (b.Tokens > 0 || b.Cost > 0) }

// Callback names the conversation a task began in, so that its results can
// be routed back there.
type Callback struct {
	Channel   string `json:"channel"`
	ChatID    string `json:"chat_id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
}

// Message is one mailbox message (see the package comment for the format).
type Message struct {
	ID        string         `json:"id"`
	From      string         `json:"from"`
	To        string         `json:"to"`
	Timestamp Time           `json:"timestamp"`
	Type      Type           `json:"type"`
	TTL       int            `json:"ttl"`
	Trace     []string       `json:"trace"`
	Task      *Task          `json:"task,omitempty"`
	Content   Content        `json:"content"`
	Callback  *Callback      `json:"callback,omitempty"`
	ReplyTo   string         `json:"reply_to"`
	Metadata  map[string]any `json:"metadata"`

	// switchboard's additions; nanobot ignores them.

	// ThreadID is the id of the first message of the conversation.
	ThreadID string `json:"thread_id,omitempty"`
	// Subject is a short kebab-case topic.
	Subject string `json:"subject,omitempty"`
	// ExpectsReply marks a request that is owed a reply.
	ExpectsReply bool `json:"expects_reply,omitempty"`
	// Priority orders pending messages: 0 (default) to 3 (highest).
	Priority int `json:"priority,omitempty"`
	// HopCount counts the replies exchanged in the thread so far.
	HopCount int `json:"hop_count,omitempty"`
	// TaskID names the task a plain message belongs to (a question asked
	// while working on it); task and task_update messages name theirs in
	// Task. See TaskOf.
	TaskID string `json:"task_id,omitempty"`
	// ReplyBy is when a reply to a message that expects one is due.
	ReplyBy *Time `json:"reply_by,omitempty"`
	// Traceparent and Tracestate carry the W3C trace context of the span
	// that sent the message (the traceparent and tracestate headers of
	// the W3C Trace Context recommendation), so that the receiver's work
	// joins the sender's trace. A message without them (nanobot's) starts
	// a new trace; a malformed value is ignored the same way.
	Traceparent string `json:"traceparent,omitempty"`
	Tracestate  string `json:"tracestate,omitempty"`
	// TaskPath places a task in its task tree: one "agent:work" entry per
	// task above it and for itself, root first, naming the agent that
	// handed the work on and a fingerprint of that work (see
	// package route: TaskPath). Only tasks carry it.
	TaskPath []string `json:"task_path,omitempty"`
	// Bridges are the bridges the message crossed, in order (see package
	// internal/bridge): a bridge never forwards a message that names it,
	// so two bridges cannot pass one back and forth. Added in transit, it
	// is no part of what the sender wrote.
	Bridges []string `json:"bridges,omitempty"`
	// Signature is the sender's detached signature over the message's
	// canonical form (see Sign, sign.go); nil on an unsigned message
	// (nanobot's, or one sent by a process without the sender's key).
	Signature *Signature `json:"signature,omitempty"`
}

// Text joins the message's text parts with newlines.
func (m *Message) Text() string {
	var out []byte
	var only string // the one text part's text, while there is one
	n := 0
	for _, p := range m.Content.Parts {
		if p.Type == PartText && p.Text != "" {
			only = p.Text
			n++
		}
	}
	if n <= 1 {
		return only // no copy
	}
	for _, p := range m.Content.Parts {
		if p.Type != PartText || p.Text == "" {
			continue
		}
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, p.Text...)
	}
	return string(out)
}

// InTrace reports whether agent is in the message's trace.
func (m *Message) InTrace(agent string) bool { return slices.Contains(m.Trace, agent) }

// Card is an agent's entry in the registry (seed 001's agent card).
type Card struct {
	AgentID            string   `json:"agent_id"`
	Description        string   `json:"description"`
	Capabilities       []string `json:"capabilities"`
	Status             Status   `json:"status"`
	AllowFrom          []string `json:"allow_from"`
	MaxConcurrentTasks int      `json:"max_concurrent_tasks"`
	CurrentTasks       []string `json:"current_tasks"`
	RegisteredAt       Time     `json:"registered_at"`
	LastHeartbeat      Time     `json:"last_heartbeat"`

	// switchboard's additions.

	// Roles are broader labels than capabilities ("reviewer", "planner").
	Roles []string `json:"roles,omitempty"`
	// PID and Host tell which process runs the agent.
	PID  int    `json:"pid,omitempty"`
	Host string `json:"host,omitempty"`
	// BridgedBy names the bridge that copied the card here from another
	// store (a folder, a NATS server); empty for an agent of this store.
	BridgedBy string `json:"bridged_by,omitempty"`
	// BridgeHops is how many bridges the card crossed from the agent's own
	// store (1 for a copy of the agent's own card); 0 on the agent's own
	// card. Bridges copy a card onward only where no copy fewer hops away
	// is, so copies never flow back toward the agent.
	BridgeHops int `json:"bridge_hops,omitempty"`
	// PublicKey is the agent's signing key, an nkeys user public key
	// ("U..."): receivers pin it on first sight and check the signature
	// of every message from the agent against the pinned key.
	PublicKey string `json:"public_key,omitempty"`
	// KeySignature, when set, is an operator key's signature over the
	// agent id and PublicKey (see CardStatement), by which receivers that
	// trust that operator key accept the key, on first sight and when it
	// changes.
	KeySignature string `json:"key_signature,omitempty"`
}

// Status is an agent's availability.
type Status string

// The agent states of seed 001, and seed 004's draining.
const (
	StatusIdle    Status = "idle"
	StatusBusy    Status = "busy"
	StatusOffline Status = "offline"
	// StatusDraining is an agent that finishes the tasks it has, takes no
	// new one, and then goes offline. A reader that knows only seed 001's
	// states sees an agent that is online and not idle.
	StatusDraining Status = "draining"
)

// Valid reports whether s is one of the known agent states.
func (s Status) Valid() bool {
	return s == StatusIdle || s == StatusBusy || s == StatusOffline || s == StatusDraining
}
