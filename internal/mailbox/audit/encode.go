package audit

import (
	"strconv"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// appendEntry appends e as one line, byte for byte what encoding/json's
// Encoder writes for it (fields in declaration order, empty optional
// fields left out, the trailing newline), without reflection: the log
// gets a line for nearly every step of every message.
func appendEntry(b []byte, e Entry) []byte {
	b = append(b, `{"time":`...)
	b = appendTime(b, e.Time)
	b = append(b, `,"kind":`...)
	b = envelope.AppendJSONString(b, string(e.Kind))
	b = append(b, `,"agent":`...)
	b = envelope.AppendJSONString(b, e.Agent)
	b = appendOpt(b, `,"message_id":`, e.MessageID)
	b = appendOpt(b, `,"from":`, e.From)
	b = appendOpt(b, `,"ref":`, e.Ref)
	b = appendOpt(b, `,"reason":`, e.Reason)
	b = appendOpt(b, `,"thread_id":`, e.ThreadID)
	b = appendOpt(b, `,"task_id":`, e.TaskID)
	b = appendOpt(b, `,"model":`, e.Model)
	b = appendInt(b, `,"input_tokens":`, e.InputTokens)
	b = appendInt(b, `,"output_tokens":`, e.OutputTokens)
	if e.PID != 0 {
		b = append(b, `,"pid":`...)
		b = strconv.AppendInt(b, int64(e.PID), 10)
	}
	b = appendOpt(b, `,"host":`, e.Host)
	return append(b, '}', '\n')
}

// appendOpt appends key and s unless s is empty (omitempty).
func appendOpt(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return envelope.AppendJSONString(append(b, key...), s)
}

// appendInt appends key and n unless n is 0 (omitempty).
func appendInt(b []byte, key string, n int64) []byte {
	if n == 0 {
		return b
	}
	return strconv.AppendInt(append(b, key...), n, 10)
}

// appendTime appends t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds, quoted); a time it cannot write (a year outside 0-9999)
// is written as the zero time.
func appendTime(b []byte, t time.Time) []byte {
	if y := t.Year(); y < 0 || y > 9999 {
		t = time.Time{}
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}
