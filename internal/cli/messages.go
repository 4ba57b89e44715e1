package cli

import (
	"bytes"
	"encoding/json"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// messageLine is a message as the listing commands print it with --json:
// where it was found and its text, followed by the message's own fields
// exactly as they are written on disk (id, from, to, timestamp, type, ttl,
// trace, task, content, callback, reply_to, metadata, thread_id, ...).
type messageLine struct {
	// File is the message's file name (thread: its path under the root).
	File string `json:"file"`
	// Depth is the message's distance from the first message of its
	// thread (thread only).
	Depth *int `json:"depth,omitempty"`
	// TraceID is the trace id of the message's traceparent (thread only,
	// when it has one).
	TraceID string `json:"trace_id,omitempty"`
	// Error says why the file could not be read; the message's fields
	// are absent then.
	Error string `json:"error,omitempty"`
	// Text is the message's text parts joined by newlines.
	Text string `json:"text,omitempty"`
	// Verified says whether the message was signed by the key pinned for
	// its sender (see senders); Unverified says why not.
	Verified   *bool  `json:"verified,omitempty"`
	Unverified string `json:"unverified,omitempty"`
	// Message is the message read (nil with Error).
	Message *envelope.Message `json:"-"`
}

// newMessageLine returns the line for a file holding msg, or failing with
// err.
func newMessageLine(file string, msg *envelope.Message, err error) messageLine {
	if err != nil {
		return messageLine{File: file, Error: err.Error()}
	}
	return messageLine{File: file, Text: msg.Text(), Message: msg}
}

// MarshalJSON writes the line's own fields and then the message's.
func (l messageLine) MarshalJSON() ([]byte, error) {
	type plain messageLine // without this method
	head, err := json.Marshal(plain(l))
	if err != nil || l.Message == nil {
		return head, err
	}
	body, err := envelope.Encode(l.Message)
	if err != nil {
		return nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil {
		return nil, err
	}
	// {head...} + {body...} = {head..., body...}
	out := append(head[:len(head)-1:len(head)-1], ',')
	return append(out, compact.Bytes()[1:]...), nil
}

// kindLabel is the type column: "message", or "task <id> <state>" and
// "task_update <id> <state>".
func kindLabel(t envelope.Type, task *envelope.Task) string {
	if task == nil || t == envelope.TypeMessage {
		return string(t)
	}
	return string(t) + " " + task.ID + " " + string(task.State)
}
