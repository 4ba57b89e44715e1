package mcpserver

import (
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// Message is a message as check_inbox and the inbox resource show it.
type Message struct {
	ID           string           `json:"id"`
	From         string           `json:"from"`
	Type         envelope.Type    `json:"type"`
	Text         string           `json:"text"`
	Data         []map[string]any `json:"data,omitempty"`
	Files        []string         `json:"files,omitempty"`
	TaskID       string           `json:"task_id,omitempty"`
	TaskState    string           `json:"task_state,omitempty"`
	Reason       string           `json:"reason,omitempty"`
	ReplyTo      string           `json:"reply_to,omitempty"`
	ThreadID     string           `json:"thread_id,omitempty"`
	Subject      string           `json:"subject,omitempty"`
	ExpectsReply bool             `json:"expects_reply,omitempty"`
	ReplyBy      *envelope.Time   `json:"reply_by,omitempty"`
	Deadline     *envelope.Time   `json:"deadline,omitempty"`
	Priority     int              `json:"priority,omitempty"`
	Timestamp    string           `json:"timestamp,omitempty"`
	Redelivered  bool             `json:"redelivered,omitempty"`
	Notice       string           `json:"notice,omitempty"`
	// Next says what the receiver is expected to do with the message.
	Next string `json:"next,omitempty"`
}

// render returns the client's view of an inbound message; given says
// whether the client was handed task taskID from agent `from` (a cancel of
// it is news about its own work, not about a task it delegated).
func render(in bus.InboundMessage, given func(taskID, from string) bool) Message {
	m := Message{ID: in.ID, From: in.SenderID, Type: envelope.TypeMessage, Text: in.Content, Files: in.Media}
	if !in.Timestamp.IsZero() {
		m.Timestamp = envelope.NewTime(in.Timestamp).String()
	}
	mt, ok := meta.Of(in.Metadata)
	if !ok {
		return m
	}
	m.ID, m.From, m.Type = mt.MessageID, mt.From, mt.Type
	m.ReplyTo, m.ThreadID, m.Subject = mt.ReplyTo, mt.ThreadID, mt.Subject
	m.ExpectsReply, m.ReplyBy, m.Priority = mt.ExpectsReply, mt.ReplyBy, mt.Priority
	m.Redelivered, m.Notice, m.TaskID = mt.Redelivered, mt.Notice, mt.TaskOf()
	for _, p := range mt.Parts {
		if p.Type == envelope.PartData && p.Data != nil {
			m.Data = append(m.Data, p.Data)
		}
	}
	if t := mt.Task; t != nil {
		m.TaskState, m.Reason, m.Deadline = string(t.State), t.Reason, t.Deadline
	}
	canceled := mt.Type == envelope.TypeTaskUpdate && mt.Task != nil && mt.Task.State == envelope.StateCanceled &&
		given != nil && given(mt.Task.ID, mt.From)
	m.Next = next(mt, canceled)
	return m
}

// next says what a message asks of its receiver; canceled says that it
// cancels a task the receiver was given.
func next(mt *meta.Meta, canceled bool) string {
	switch {
	case mt.Notice == meta.NoticeOverdue:
		return "a reply you wait for is overdue; nothing to answer"
	case mt.IsTask():
		return "a task you accepted: do it, then update_task with task_id " + mt.TaskOf() + " and state complete (or fail); progress is optional"
	case canceled:
		return "task " + mt.Task.ID + " was canceled by its sender " + mt.From + ": stop working on it; nothing to answer"
	case mt.Type == envelope.TypeTaskUpdate:
		return "an update of a task you delegated; nothing to answer"
	case mt.ExpectsReply:
		return "a request: answer with reply (message_id " + mt.MessageID + ")"
	case mt.ReplyTo != "":
		return "a reply to your message " + mt.ReplyTo + "; answer only if needed"
	}
	return "a message; answer with reply if you want to"
}
