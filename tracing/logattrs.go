package tracing

// LogAttrs returns the attributes of a log line about a message, the same
// names for the same things whichever channel or loop logs it: "id" (the
// channel's id of the message), "thread" (the thread it belongs to) and
// "trace" (the trace id of tc's traceparent: a bus message's
// TraceContext). Empty values are left out.
func LogAttrs(id, thread string, tc map[string]string) []any {
	out := make([]any, 0, 6)
	if id != "" {
		out = append(out, "id", id)
	}
	if thread != "" {
		out = append(out, "thread", thread)
	}
	if trace := TraceID(tc[KeyTraceparent]); trace != "" {
		out = append(out, "trace", trace)
	}
	return out
}
