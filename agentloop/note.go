package agentloop

import (
	"encoding/json"
	"strings"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// notePrefix starts the text of every MailboxNote.
const notePrefix = "[mailbox "

// reasonPrefix starts the first body line of a note that carries a reason.
const reasonPrefix = "reason: "

// MailboxNote is how the loop shows a message from another agent to the
// provider: a header naming the message type, the sender and, for a
// task_update, the task and its state, then the text. Its String form is
//
//	[mailbox <type> from <agent>] <text>
//	[mailbox task_update from <agent>: task <id> <state>] <text>
//
// and when there is a reason (a rejected or failed task) the text starts
// with a line "reason: <reason>". ParseMailboxNote reads it back.
type MailboxNote struct {
	// Type is "message", "task" or "task_update".
	Type string
	// From is the sending agent.
	From string
	// TaskID and State describe the task of a task_update.
	TaskID string
	State  string
	// Reason explains a rejection or failure.
	Reason string
	// Text is the message's text.
	Text string
}

// String formats the note (see MailboxNote).
func (n MailboxNote) String() string {
	var b strings.Builder
	b.WriteString(notePrefix)
	b.WriteString(token(n.Type))
	b.WriteString(" from ")
	b.WriteString(token(n.From))
	if n.TaskID != "" && n.Type == string(envelope.TypeTaskUpdate) {
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

// ParseMailboxNote reads a note formatted by MailboxNote.String; ok is
// false when s is not one.
func ParseMailboxNote(s string) (n MailboxNote, ok bool) {
	rest, found := strings.CutPrefix(s, notePrefix)
	if !found {
		return MailboxNote{}, false
	}
	header, body, found := strings.Cut(rest, "]")
	if !found {
		return MailboxNote{}, false
	}
	head, task, hasTask := strings.Cut(header, ": task ")
	f := strings.Fields(head)
	if len(f) != 3 || f[1] != "from" {
		return MailboxNote{}, false
	}
	n.Type, n.From = f[0], f[2]
	if hasTask {
		tf := strings.Fields(task)
		if len(tf) != 2 {
			return MailboxNote{}, false
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

// noteOf builds the note of a mailbox message.
func noteOf(in bus.InboundMessage, mt *meta.Meta) MailboxNote {
	n := MailboxNote{Type: string(mt.Type), From: mt.From, Text: textOf(in, mt)}
	if n.From == "" {
		n.From = in.SenderID
	}
	if mt.Task != nil && mt.Type == envelope.TypeTaskUpdate {
		n.TaskID, n.State, n.Reason = mt.Task.ID, string(mt.Task.State), mt.Task.Reason
	}
	return n
}

// textOf is the text of a mailbox message: its parts (data as JSON, files
// as "file: <path>"), or the inbound content when there are none.
func textOf(in bus.InboundMessage, mt *meta.Meta) string {
	if len(mt.Parts) == 0 {
		if mt.Type == envelope.TypeTaskUpdate {
			return "" // the channel's content only restates the header
		}
		return in.Content
	}
	var lines []string
	for _, p := range mt.Parts {
		switch p.Type {
		case envelope.PartText:
			if p.Text != "" {
				lines = append(lines, p.Text)
			}
		case envelope.PartData:
			if data, err := json.Marshal(p.Data); err == nil {
				lines = append(lines, "data: "+string(data))
			}
		case envelope.PartFile:
			lines = append(lines, "file: "+p.Path)
		}
	}
	return strings.Join(lines, "\n")
}
