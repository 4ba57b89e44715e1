package envelope

import (
	"errors"
	"fmt"
)

// Kind is a message's role in a conversation (seed 000): a request owed a
// reply, the response to one, or a notice that needs none. It is derived
// from expects_reply and reply_to, so nanobot's messages have one too.
type Kind string

// The conversation kinds.
const (
	KindRequest  Kind = "request"  // expects_reply: the receiver owes a reply
	KindResponse Kind = "response" // answers the message named in reply_to
	KindNotify   Kind = "notify"   // needs no reply
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k == KindRequest || k == KindResponse || k == KindNotify }

// Kind returns the message's conversation kind: a message that expects a
// reply is a request (even when it also answers another), one with
// reply_to (or a task_update) a response, anything else a notice.
func (m *Message) Kind() Kind {
	switch {
	case m.ExpectsReply:
		return KindRequest
	case m.ReplyTo != "" || m.Type == TypeTaskUpdate:
		return KindResponse
	}
	return KindNotify
}

// TaskOf returns the id of the task the message belongs to: its task
// block's, else its task_id, else "".
func (m *Message) TaskOf() string {
	if m.Task != nil && m.Task.ID != "" {
		return m.Task.ID
	}
	return m.TaskID
}

// MaxSubjectLen is the longest subject accepted, in bytes.
const MaxSubjectLen = 64

// ErrBadSubject is wrapped by every subject validation error.
var ErrBadSubject = errors.New("invalid subject")

// ValidateSubject checks that s is a kebab-case topic: lower-case letters
// and digits in words joined by single '-' ("missing-test", "api-v2"),
// at most MaxSubjectLen bytes. The empty subject is valid (none).
func ValidateSubject(s string) error {
	if s == "" {
		return nil
	}
	if len(s) > MaxSubjectLen {
		return fmt.Errorf("%w %.20q...: longer than %d bytes", ErrBadSubject, s, MaxSubjectLen)
	}
	prevDash := true // no leading dash
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			prevDash = false
		case r == '-' && !prevDash:
			prevDash = true
		default:
			return fmt.Errorf("%w %q: want kebab-case (lower-case words joined by '-', such as \"missing-test\")",
				ErrBadSubject, s)
		}
	}
	if prevDash {
		return fmt.Errorf("%w %q: must not end with '-'", ErrBadSubject, s)
	}
	return nil
}
