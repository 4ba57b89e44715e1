package meta

import "github.com/switchboard-dev/switchboard/channels/mailbox/envelope"

// The attributes of a log line about a message are made here, and only
// here: every line about a message carries the same names for the same
// things, and what names a message (its id, its thread, its trace) is
// added in one place.

// traceparentKey is the key of a trace context map (bus messages'
// TraceContext) that holds the W3C traceparent.
const traceparentKey = "traceparent"

// LogAttrs returns the attributes of a log line about the bus message with
// id, metadata md and trace context tc (its TraceContext): "id", "thread"
// when md carries the details of a mailbox message, and "trace" (the trace
// id of tc's traceparent) when the message is part of a trace. Empty
// values are left out.
func LogAttrs(id string, md map[string]any, tc map[string]string) []any {
	thread := ""
	if mt, ok := Of(md); ok {
		thread = mt.ThreadID
		if id == "" {
			id = mt.MessageID
		}
	}
	return attrs(id, thread, envelope.TraceID(tc[traceparentKey]))
}

// MessageLogAttrs returns the attributes of a log line about mailbox
// message m, as LogAttrs does for the bus message made of it: "id",
// "thread", "trace" (from its traceparent) and "from".
func MessageLogAttrs(m *envelope.Message) []any {
	return append(attrs(m.ID, m.ThreadID, envelope.TraceID(m.Traceparent)), "from", m.From)
}

func attrs(id, thread, trace string) []any {
	out := make([]any, 0, 8)
	if id != "" {
		out = append(out, "id", id)
	}
	if thread != "" {
		out = append(out, "thread", thread)
	}
	if trace != "" {
		out = append(out, "trace", trace)
	}
	return out
}
