package driver

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Summary is the part of a message the views decide on: who sent it to
// whom and when, what it answers, which thread and task it belongs to,
// whether it asks for a reply, and its subject (what a list of requests
// shows). It is small enough to keep for every
// message of a large store, and is all a backend's index needs to hold.
type Summary struct {
	ID, From, To string
	Type         envelope.Type
	Timestamp    time.Time
	ReplyTo      string
	ThreadID     string
	// TaskID is the message's task_id key; Task its task block, if any.
	TaskID string
	Task   *TaskSummary
	// ExpectsReply is the message's expects_reply; ReplyBy its reply_by
	// (zero without one).
	ExpectsReply bool
	ReplyBy      time.Time
	// Subject is the message's subject.
	Subject string
}

// TaskSummary is the part of a task block a Summary keeps.
type TaskSummary struct {
	ID       string
	State    envelope.TaskState
	Deadline time.Time // zero without one
}

// Summarize returns the Summary of m.
func Summarize(m *envelope.Message) Summary {
	s := Summary{ID: m.ID, From: m.From, To: m.To, Type: m.Type, Timestamp: m.Timestamp.Time,
		ReplyTo: m.ReplyTo, ThreadID: m.ThreadID, TaskID: m.TaskID, ExpectsReply: m.ExpectsReply, Subject: m.Subject}
	if m.ReplyBy != nil {
		s.ReplyBy = m.ReplyBy.Time
	}
	if m.Task != nil {
		s.Task = &TaskSummary{ID: m.Task.ID, State: m.Task.State}
		if m.Task.Deadline != nil {
			s.Task.Deadline = m.Task.Deadline.Time
		}
	}
	return s
}

// TaskOf is envelope.Message.TaskOf of the summarized message: the id of
// its task block, else its task_id.
func (s *Summary) TaskOf() string {
	if s.Task != nil && s.Task.ID != "" {
		return s.Task.ID
	}
	return s.TaskID
}

// Skimmed is one message listed by a Skimmer: its summary, and where it
// is.
type Skimmed struct {
	Summary Summary
	// Agent, Box and Ref are as in Stored.
	Agent string
	Box   Box
	Ref   string
	// Message is the whole message when whoever skimmed it read it whole
	// anyway (the facade's Skim over a backend without an index); nil
	// from a Skimmer's index.
	Message *envelope.Message
}

// Skimmer is a Browser that can list its messages by their summaries
// without reading each one whole, and read one whole on demand (the
// folder store keeps an index of the summaries). Views that show a few
// messages of a large store skim it, then fetch what they show.
type Skimmer interface {
	Browser
	// Skim calls fn for each message in the mailboxes of agents (every
	// agent's when agents is nil), as Browse finds them, until fn
	// returns false or ctx ends. An agent without a mailbox has none.
	// A message that moves on while it is skimmed (claimed, handled,
	// archived with its task) is listed all the same, where it was
	// listed or where it went.
	Skim(ctx context.Context, agents []string, fn func(Skimmed) bool) error
	// Fetch reads the message s names whole. When it has moved on since
	// it was skimmed (claimed, handled, archived), Fetch finds it where it
	// is now and says so in the Stored it returns; a message that is
	// gone fails with an error wrapping fs.ErrNotExist.
	Fetch(ctx context.Context, s Skimmed) (Stored, error)
}
