package meta

import (
	"encoding/json"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// ChannelName is the name the mailbox channel has on the bus.
const ChannelName = "mailbox"

// NoticeOverdue marks (in Meta.Notice) the notice that a reply this agent
// waits for did not come by its due time.
const NoticeOverdue = "overdue"

// metaKey and replyKey are the only metadata keys the mailbox uses; go
// through Of, With and WithReply rather than using them directly.
const (
	metaKey  = "mailbox"
	replyKey = "mailbox_reply"
)

// Meta describes the mailbox message behind an InboundMessage.
type Meta struct {
	MessageID    string         `json:"message_id"`
	From         string         `json:"from"`
	To           string         `json:"to"`
	Type         envelope.Type  `json:"type"`
	Task         *envelope.Task `json:"task,omitempty"`
	TTL          int            `json:"ttl"`
	Trace        []string       `json:"trace"`
	ReplyTo      string         `json:"reply_to,omitempty"`
	ThreadID     string         `json:"thread_id,omitempty"`
	Subject      string         `json:"subject,omitempty"`
	HopCount     int            `json:"hop_count,omitempty"`
	ExpectsReply bool           `json:"expects_reply,omitempty"`
	// Exchange is what a reply carries of its chain's progress
	// (envelope.Exchange): a reply to this message counts on from it.
	Exchange envelope.Exchange `json:"exchange,omitzero"`
	Priority int               `json:"priority,omitempty"`
	// TaskID is the task a plain message belongs to (see TaskOf).
	TaskID  string          `json:"task_id,omitempty"`
	ReplyBy *envelope.Time  `json:"reply_by,omitempty"`
	Parts   []envelope.Part `json:"parts,omitempty"`
	// Callback is set when the message was routed back to the
	// conversation of a task this agent delegated (see Routed).
	Callback *envelope.Callback `json:"callback,omitempty"`
	// TaskCallback is the callback written in the incoming task itself. It
	// is never used for routing here; it is echoed in the task's updates
	// so that a nanobot sender can route them.
	TaskCallback *envelope.Callback `json:"task_callback,omitempty"`
	Redelivered  bool               `json:"redelivered,omitempty"`
	// Unverified is set on a message taken without a signature that
	// shows who sent it (unsigned, from an agent allowed to send so: see
	// channels.mailbox.allowUnsigned): From is only its claim.
	Unverified bool `json:"unverified,omitempty"`
	// Notice is set on what the channel itself tells the agent rather
	// than a message it received: NoticeOverdue.
	Notice string `json:"notice,omitempty"`
	// TaskPath is the task's place in its task tree (envelope's
	// task_path).
	TaskPath []string `json:"task_path,omitempty"`
	// Tree is set on an update routed back to the conversation a task was
	// delegated from: the task tree that conversation was working in, so
	// that work delegated from it stays in the tree (see TreeOf, tree.go).
	Tree *Tree `json:"tree,omitempty"`
}

// TaskOf returns the task the message belongs to: its task block's id,
// else TaskID.
func (m *Meta) TaskOf() string {
	if m.Task != nil && m.Task.ID != "" {
		return m.Task.ID
	}
	return m.TaskID
}

// IsTask reports whether the message is a task request.
func (m *Meta) IsTask() bool { return m.Type == envelope.TypeTask }

// Routed reports whether the message was routed to the conversation its
// task began in (rather than to the "mailbox" channel).
func (m *Meta) Routed() bool { return m.Callback != nil }

// FromMessage returns the Meta of a message, as the channel attaches it
// to the InboundMessage it makes of m.
func FromMessage(m *envelope.Message, redelivered bool) Meta {
	return Meta{
		MessageID: m.ID, From: m.From, To: m.To, Type: m.Type, Task: m.Task,
		TTL: m.TTL, Trace: m.Trace, ReplyTo: m.ReplyTo, ThreadID: m.ThreadID,
		Subject: m.Subject, HopCount: m.HopCount, ExpectsReply: m.ExpectsReply,
		Priority: m.Priority, Parts: m.Content.Parts, Redelivered: redelivered,
		TaskCallback: m.Callback, TaskID: m.TaskID, ReplyBy: m.ReplyBy, TaskPath: m.TaskPath,
		Exchange: m.Exchange(),
	}
}

// Of returns the mailbox details carried in an inbound or outbound
// message's metadata, if any. It accepts the value With stored and the
// plain map it turns into after a JSON round trip.
func Of(md map[string]any) (*Meta, bool) {
	var out Meta
	if !fromMetadata(md, metaKey, &out) {
		return nil, false
	}
	return &out, true
}

// With stores m in md (allocated when nil) and returns md.
func With(md map[string]any, m Meta) map[string]any {
	if md == nil {
		md = map[string]any{}
	}
	md[metaKey] = m
	return md
}

// Reply says how an outbound message answers a mailbox message: for a task,
// which state the task_update reports (completed when empty) and why.
type Reply struct {
	State  envelope.TaskState `json:"state,omitempty"`
	Reason string             `json:"reason,omitempty"`
}

// WithReply stores r in md (allocated when nil) and returns md.
func WithReply(md map[string]any, r Reply) map[string]any {
	if md == nil {
		md = map[string]any{}
	}
	md[replyKey] = r
	return md
}

// ReplyOf returns the reply options in md, if any.
func ReplyOf(md map[string]any) (Reply, bool) {
	var r Reply
	ok := fromMetadata(md, replyKey, &r)
	return r, ok
}

// fromMetadata reads md[key] into out: the typed value, a pointer to it, or
// a JSON-shaped map.
func fromMetadata[T any](md map[string]any, key string, out *T) bool {
	v, ok := md[key]
	if !ok || v == nil {
		return false
	}
	switch t := v.(type) {
	case T:
		*out = t
		return true
	case *T:
		if t == nil {
			return false
		}
		*out = *t
		return true
	}
	data, err := json.Marshal(v)
	if err != nil {
		return false
	}
	return json.Unmarshal(data, out) == nil
}
