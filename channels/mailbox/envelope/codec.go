package envelope

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

var (
	// ErrMalformed is wrapped by every error about a message's content.
	ErrMalformed = errors.New("malformed message")
	// ErrTooLarge is returned for input over the size cap.
	ErrTooLarge = errors.New("message too large")
)

// DefaultTTL is the hop budget of a new message when none is configured.
const DefaultTTL = 3

// wireMessage mirrors Message with pointers where nanobot may write null or
// leave a key out, so that Decode can tell "missing" from "zero".
type wireMessage struct {
	ID           *string        `json:"id"`
	From         *string        `json:"from"`
	To           *string        `json:"to"`
	Timestamp    Time           `json:"timestamp"`
	Type         *Type          `json:"type"`
	TTL          *int           `json:"ttl"`
	Trace        []string       `json:"trace"`
	Task         *Task          `json:"task"`
	Content      *Content       `json:"content"`
	Callback     *Callback      `json:"callback"`
	ReplyTo      *string        `json:"reply_to"`
	Metadata     map[string]any `json:"metadata"`
	ThreadID     *string        `json:"thread_id"`
	Subject      *string        `json:"subject"`
	ExpectsReply *bool          `json:"expects_reply"`
	Priority     *int           `json:"priority"`
	HopCount     *int           `json:"hop_count"`
	TaskID       *string        `json:"task_id"`
	ReplyBy      *Time          `json:"reply_by"`
	Traceparent  *string        `json:"traceparent"`
	Tracestate   *string        `json:"tracestate"`
	TaskPath     []string       `json:"task_path"`
	Signature    *Signature     `json:"signature"`
}

// Decode reads one message from r, refusing more than maxBytes (0 means no
// cap) before decoding anything. Missing or null optional keys take their
// defaults (ttl DefaultTTL; trace, content.parts and metadata empty, not
// nil). The result is validated (see Validate).
func Decode(r io.Reader, maxBytes int64) (*Message, error) {
	var data []byte
	var err error
	if maxBytes > 0 {
		data, err = io.ReadAll(io.LimitReader(r, maxBytes+1))
		if err == nil && int64(len(data)) > maxBytes {
			return nil, fmt.Errorf("%w: over %d bytes", ErrTooLarge, maxBytes)
		}
	} else {
		data, err = io.ReadAll(r)
	}
	if err != nil {
		return nil, fmt.Errorf("read message: %w", err)
	}
	return DecodeBytes(data)
}

// DecodeBytes decodes and validates one message held in data. data must
// be one JSON value with no object naming a member twice (see
// checkSyntax); encoding/json decodes it.
func DecodeBytes(data []byte) (*Message, error) {
	if err := checkSyntax(data); err != nil {
		return nil, err
	}
	var w wireMessage
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrMalformed, describeJSONError(err))
	}
	m := &Message{
		ID: deref(w.ID), From: deref(w.From), To: deref(w.To), Timestamp: w.Timestamp,
		Type: deref(w.Type), TTL: DefaultTTL, Trace: w.Trace, Task: w.Task,
		Callback: w.Callback, ReplyTo: deref(w.ReplyTo), Metadata: w.Metadata,
		ThreadID: deref(w.ThreadID), Subject: deref(w.Subject),
		ExpectsReply: deref(w.ExpectsReply), Priority: deref(w.Priority), HopCount: deref(w.HopCount),
		TaskID: deref(w.TaskID), ReplyBy: w.ReplyBy, TaskPath: w.TaskPath,
		Traceparent: deref(w.Traceparent), Tracestate: deref(w.Tracestate),
		Signature: w.Signature,
	}
	if w.TTL != nil {
		m.TTL = *w.TTL
	}
	if w.Content != nil {
		m.Content = *w.Content
	}
	canonicalize(m)
	if err := Validate(m); err != nil {
		return nil, err
	}
	return m, nil
}

// canonicalize gives what nanobot may leave out or write as null the value
// Encode writes for it, so that a decoded message encodes and decodes back
// to itself: trace, parts and metadata empty rather than nil, a data part's
// data an empty object, and a zero deadline none.
func canonicalize(m *Message) {
	if m.Trace == nil {
		m.Trace = []string{}
	}
	if m.Content.Parts == nil {
		m.Content.Parts = []Part{}
	}
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	for i := range m.Content.Parts {
		if p := &m.Content.Parts[i]; p.Type == PartData && p.Data == nil {
			p.Data = map[string]any{}
		}
	}
	if m.Task != nil && m.Task.Deadline != nil && m.Task.Deadline.IsZero() {
		m.Task.Deadline = nil
	}
	if m.ReplyBy != nil && m.ReplyBy.IsZero() {
		m.ReplyBy = nil
	}
	if len(m.TaskPath) == 0 {
		m.TaskPath = nil
	}
}

func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

func describeJSONError(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)
	case errors.As(err, &te) && te.Field == "":
		return fmt.Sprintf("want a JSON object, got %s", te.Value)
	case errors.As(err, &te):
		return fmt.Sprintf("field %q: want %s, got %s", te.Field, te.Type, te.Value)
	case errors.Is(err, io.EOF):
		return "empty file"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated JSON"
	}
	return err.Error()
}

// Validate checks the fields every message must have and the values that
// must be well formed: id, from and to (safe agent ids), a known type, a
// known task state, a task budget not negative, known part kinds, a
// priority of 0 to 3, and ttl and hop_count not negative.
func Validate(m *Message) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
	}
	if m.ID == "" {
		return bad("missing id")
	}
	if err := ValidateAgentID(m.From); err != nil {
		return bad("from: %v", err)
	}
	if err := ValidateAgentID(m.To); err != nil {
		return bad("to: %v", err)
	}
	if !m.Type.Valid() {
		return bad("type %q: want message, task or task_update", m.Type)
	}
	if (m.Type == TypeTask || m.Type == TypeTaskUpdate) && m.Task == nil {
		return bad("type %s without a task block", m.Type)
	}
	if m.Task != nil {
		if m.Task.ID == "" {
			return bad("task without an id")
		}
		if m.Task.State != "" && !m.Task.State.Valid() {
			return bad("task state %q unknown", m.Task.State)
		}
		if b := m.Task.Budget; b != nil && (b.Tokens < 0 || b.Cost < 0) {
			return bad("task budget must not be negative")
		}
		if u := m.Task.Used; u != nil && (u.Tokens < 0 || u.Cost < 0) {
			return bad("task usage must not be negative")
		}
	}
	for i, p := range m.Content.Parts {
		switch p.Type {
		case PartText, PartData, PartFile:
		default:
			return bad("content.parts[%d]: type %q: want text, data or file", i, p.Type)
		}
	}
	if m.Priority < 0 || m.Priority > 3 {
		return bad("priority %d: want 0 to 3", m.Priority)
	}
	if m.TTL < 0 || m.HopCount < 0 {
		return bad("ttl and hop_count must not be negative")
	}
	return nil
}
