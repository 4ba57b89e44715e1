package meta

import "github.com/switchboard-dev/switchboard/channels/mailbox/envelope"

// The attributes of a log line about a message are made here, and only
// here: every line about a message carries the same names for the same
// things, and what names a message (its id, its thread, its trace) is
// added in one place.

// LogAttrs returns the attributes of a log line about the bus message with
// id and metadata md: "id", and "thread" when md carries the details of a
// mailbox message. An empty id is left out.
func LogAttrs(id string, md map[string]any) []any {
	thread := ""
	if mt, ok := Of(md); ok {
		thread = mt.ThreadID
		if id == "" {
			id = mt.MessageID
		}
	}
	return attrs(id, thread)
}

// MessageLogAttrs returns the attributes of a log line about mailbox
// message m, as LogAttrs does for the bus message made of it: "id",
// "thread" and "from".
func MessageLogAttrs(m *envelope.Message) []any {
	return append(attrs(m.ID, m.ThreadID), "from", m.From)
}

func attrs(id, thread string) []any {
	out := make([]any, 0, 6)
	if id != "" {
		out = append(out, "id", id)
	}
	if thread != "" {
		out = append(out, "thread", thread)
	}
	return out
}
