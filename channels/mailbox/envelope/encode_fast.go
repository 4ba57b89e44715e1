package envelope

import (
	"strconv"
)

// encodeCompactFast writes m as json.Marshal(wireForm(m)) does, byte for
// byte, without reflection. It reports false for what it leaves to
// encoding/json: metadata or data values it cannot write (those
// encoding/json refuses, such as NaN, or nesting deeper than maxDepth).
func encodeCompactFast(m *Message) ([]byte, bool) {
	return appendMessage(make([]byte, 0, sizeHint(m)), m)
}

// sizeHint guesses the length of m's encoding, so that it is usually
// written without growing the buffer.
func sizeHint(m *Message) int {
	n := 200 + len(m.ID) + len(m.From) + len(m.To) + len(m.ReplyTo) + len(m.ThreadID) +
		len(m.Subject) + len(m.TaskID) + len(m.Traceparent) + len(m.Tracestate) + 40*len(m.Metadata)
	for _, t := range m.Trace {
		n += len(t) + 3
	}
	for _, p := range m.Content.Parts {
		n += 30 + len(p.Text) + len(p.Path) + 40*len(p.Data)
	}
	if m.Task != nil {
		n += 80 + len(m.Task.ID) + len(m.Task.Reason)
	}
	if m.Callback != nil {
		n += 60 + len(m.Callback.Channel) + len(m.Callback.ChatID) + len(m.Callback.SessionID)
	}
	return n + n/8
}

// appendMessage appends m's compact encoding to b (see encodeCompactFast).
// The order of the members is that of Message's fields, reply_to last
// (wireForm's own field).
func appendMessage(b []byte, m *Message) ([]byte, bool) {
	b = appendString(append(b, `{"id":`...), m.ID)
	b = appendString(append(b, `,"from":`...), m.From)
	b = appendString(append(b, `,"to":`...), m.To)
	b = appendTime(append(b, `,"timestamp":`...), m.Timestamp)
	b = appendString(append(b, `,"type":`...), string(m.Type))
	b = strconv.AppendInt(append(b, `,"ttl":`...), int64(m.TTL), 10)
	b = append(b, `,"trace":[`...)
	for i, t := range m.Trace {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, t)
	}
	b = append(b, ']')
	if t := m.Task; t != nil {
		b = appendString(append(b, `,"task":{"id":`...), t.ID)
		b = appendString(append(b, `,"state":`...), string(t.State))
		if t.Deadline != nil {
			b = appendTime(append(b, `,"deadline":`...), *t.Deadline)
		}
		if t.Reason != "" {
			b = appendString(append(b, `,"reason":`...), t.Reason)
		}
		if t.Budget != nil {
			var ok bool
			if b, ok = appendBudget(append(b, `,"budget":`...), t.Budget); !ok {
				return nil, false
			}
		}
		if t.Used != nil {
			var ok bool
			if b, ok = appendBudget(append(b, `,"used":`...), t.Used); !ok {
				return nil, false
			}
		}
		b = append(b, '}')
	}
	b = append(b, `,"content":{"parts":[`...)
	for i := range m.Content.Parts {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendPart(b, &m.Content.Parts[i]); !ok {
			return nil, false
		}
	}
	b = append(b, "]}"...)
	if c := m.Callback; c != nil {
		b = appendString(append(b, `,"callback":{"channel":`...), c.Channel)
		if c.ChatID != "" {
			b = appendString(append(b, `,"chat_id":`...), c.ChatID)
		}
		if c.SessionID != "" {
			b = appendString(append(b, `,"session_id":`...), c.SessionID)
		}
		b = append(b, '}')
	}
	b = append(b, `,"metadata":`...)
	if m.Metadata == nil {
		b = append(b, "{}"...)
	} else {
		var ok bool
		if b, ok = appendObject(b, m.Metadata, 1); !ok {
			return nil, false
		}
	}
	b = appendOptional(b, m)
	if m.ReplyTo == "" {
		return append(b, `,"reply_to":null}`...), true
	}
	return append(appendString(append(b, `,"reply_to":`...), m.ReplyTo), '}'), true
}

// appendOptional appends switchboard's additions, each only when set.
func appendOptional(b []byte, m *Message) []byte {
	if m.ThreadID != "" {
		b = appendString(append(b, `,"thread_id":`...), m.ThreadID)
	}
	if m.Subject != "" {
		b = appendString(append(b, `,"subject":`...), m.Subject)
	}
	if m.ExpectsReply {
		b = append(b, `,"expects_reply":true`...)
	}
	if m.Priority != 0 {
		b = strconv.AppendInt(append(b, `,"priority":`...), int64(m.Priority), 10)
	}
	if m.HopCount != 0 {
		b = strconv.AppendInt(append(b, `,"hop_count":`...), int64(m.HopCount), 10)
	}
	if m.TaskID != "" {
		b = appendString(append(b, `,"task_id":`...), m.TaskID)
	}
	if m.ReplyBy != nil {
		b = appendTime(append(b, `,"reply_by":`...), *m.ReplyBy)
	}
	if m.Traceparent != "" {
		b = appendString(append(b, `,"traceparent":`...), m.Traceparent)
	}
	if m.Tracestate != "" {
		b = appendString(append(b, `,"tracestate":`...), m.Tracestate)
	}
	if len(m.TaskPath) > 0 {
		b = append(b, `,"task_path":[`...)
		for i, e := range m.TaskPath {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, e)
		}
		b = append(b, ']')
	}
	return b
}

// appendBudget appends the value of a task's budget or used member, as
// encoding/json writes Budget (a NaN or infinite cost, which it refuses,
// reports false).
func appendBudget(b []byte, bu *Budget) ([]byte, bool) {
	b = append(b, '{')
	sep := false
	if bu.Tokens != 0 {
		b = strconv.AppendInt(append(b, `"tokens":`...), bu.Tokens, 10)
		sep = true
	}
	if bu.Cost != 0 {
		if sep {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendFloat(append(b, `"cost":`...), bu.Cost); !ok {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// appendPart appends p as Part.MarshalJSON writes it.
func appendPart(b []byte, p *Part) ([]byte, bool) {
	b = appendString(append(b, `{"type":`...), string(p.Type))
	if p.Type == PartText || p.Text != "" {
		b = appendString(append(b, `,"text":`...), p.Text)
	}
	if p.Type == PartData || p.Data != nil {
		b = append(b, `,"data":`...)
		if p.Data == nil {
			b = append(b, "{}"...)
		} else {
			var ok bool
			if b, ok = appendObject(b, p.Data, 1); !ok {
				return nil, false
			}
		}
	}
	if p.Type == PartFile || p.Path != "" {
		b = appendString(append(b, `,"path":`...), p.Path)
	}
	return append(b, '}'), true
}

// appendTime appends t as Time.MarshalJSON writes it: null for the zero
// time, else wireLayout in UTC.
func appendTime(b []byte, t Time) []byte {
	if t.IsZero() {
		return append(b, "null"...)
	}
	u := t.UTC()
	year, month, day := u.Date()
	if year < 0 || year > 9999 {
		return append(u.AppendFormat(append(b, '"'), wireLayout), '"')
	}
	hour, minute, sec := u.Clock()
	b = append(b, '"')
	b = appendDigits(b, year, 4)
	b = appendDigits(append(b, '-'), int(month), 2)
	b = appendDigits(append(b, '-'), day, 2)
	b = appendDigits(append(b, 'T'), hour, 2)
	b = appendDigits(append(b, ':'), minute, 2)
	b = appendDigits(append(b, ':'), sec, 2)
	b = appendDigits(append(b, '.'), u.Nanosecond()/1000, 6)
	return append(b, `+00:00"`...)
}

// appendDigits appends the n lowest decimal digits of v (v >= 0), with
// leading zeros.
func appendDigits(b []byte, v, n int) []byte {
	start := len(b)
	for range n {
		b = append(b, '0')
	}
	for i := len(b) - 1; i >= start && v > 0; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}
