package bus

import "strings"

// notePrefix starts the text of every Note.
const notePrefix = "[mailbox "

// reasonPrefix starts the first body line of a note that carries a reason.
const reasonPrefix = "reason: "

// unverifiedMark follows the sender of a note whose sender is a claim
// nothing checked.
const unverifiedMark = "(unverified)"

// The types of a Note (those of a mailbox message).
const (
	NoteMessage    = "message"     // a message
	NoteTask       = "task"        // a task delegated to the agent
	NoteTaskUpdate = "task_update" // an update of a task
)

// Note is how a message from another agent is shown to the model: a
// header naming the message type, the sender and, for a task_update, the
// task and its state, then the text. The channel that carries messages
// between agents (the mailbox) sets InboundMessage.Note; the agent loop
// shows its String form instead of the content. That form is
//
//	[mailbox <type> from <agent>] <text>
//	[mailbox task_update from <agent>: task <id> <state>] <text>
//
// and when there is a reason (a rejected or failed task) the text starts
// with a line "reason: <reason>". The sender of an unverified message (no
// signature shows that it wrote it: nanobot's) is followed by
// "(unverified)": "[mailbox message from py (unverified)] hi". ParseNote reads it back: it is what the
// conversation files keep and what the scripted provider reads.
type Note struct {
	// Type is NoteMessage, NoteTask or NoteTaskUpdate.
	Type string `json:"type"`
	// From is the sending agent.
	From string `json:"from"`
	// TaskID is the task the message is about: the task itself, the task
	// of an update, or the task a message belongs to. The header shows it
	// for a task_update only.
	TaskID string `json:"task_id,omitempty"`
	// State is the task's state, for a task_update.
	State string `json:"state,omitempty"`
	// Reason explains a rejection or failure.
	Reason string `json:"reason,omitempty"`
	// Text is the message's text.
	Text string `json:"text,omitempty"`
	// Unverified says that nothing shows that From sent the message
	// (it came unsigned): From is only its claim.
	Unverified bool `json:"unverified,omitempty"`
}

// String formats the note (see Note).
func (n Note) String() string {
	var b strings.Builder
	b.WriteString(notePrefix)
	b.WriteString(token(n.Type))
	b.WriteString(" from ")
	b.WriteString(token(n.From))
	if n.Unverified {
		b.WriteString(" " + unverifiedMark)
	}
	if n.TaskID != "" && n.Type == NoteTaskUpdate {
		b.WriteString(": task ")
		b.WriteString(token(n.TaskID))
		b.WriteString(" ")
		b.WriteString(token(n.State))
	}
	b.WriteString("]")
	body := n.Text
	if n.Reason != "" {
		body = reasonPrefix + strings.ReplaceAll(n.Reason, "\n", " ")
		if n.Text != "" {
			body += "\n" + n.Text
		}
	}
	if body != "" {
		b.WriteString(" ")
		b.WriteString(body)
	}
	return b.String()
}

// token makes s a single header word: no spaces, brackets or colons.
func token(s string) string {
	if s == "" {
		return "-"
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '\r', '[', ']', ':':
			return '_'
		}
		return r
	}, s)
}

// ParseNote reads a note formatted by Note.String; ok is false when s is
// not one. The task id of a note that is not a task_update is not in its
// text, so it is not read back.
func ParseNote(s string) (n Note, ok bool) {
	rest, found := strings.CutPrefix(s, notePrefix)
	if !found {
		return Note{}, false
	}
	header, body, found := strings.Cut(rest, "]")
	if !found {
		return Note{}, false
	}
	head, task, hasTask := strings.Cut(header, ": task ")
	f := strings.Fields(head)
	if len(f) == 4 && f[3] == unverifiedMark {
		f, n.Unverified = f[:3], true
	}
	if len(f) != 3 || f[1] != "from" {
		return Note{}, false
	}
	n.Type, n.From = f[0], f[2]
	if hasTask {
		tf := strings.Fields(task)
		if len(tf) != 2 {
			return Note{}, false
		}
		n.TaskID, n.State = tf[0], tf[1]
	}
	body = strings.TrimPrefix(body, " ")
	if r, found := strings.CutPrefix(body, reasonPrefix); found {
		n.Reason, body, _ = strings.Cut(r, "\n")
	}
	n.Text = body
	return n, true
}
