package envelope

// The member names of the objects the fast path decodes, as encoding/json
// finds them on wireMessage, Task, Budget, Callback, Content and Part.
var (
	messageKeys = []string{"id", "from", "to", "timestamp", "type", "ttl", "trace",
		"task", "content", "callback", "reply_to", "metadata", "thread_id",
		"subject", "expects_reply", "priority", "hop_count", "task_id", "reply_by",
		"traceparent", "tracestate", "task_path"}
	taskKeys     = []string{"id", "state", "deadline", "reason", "budget", "used"}
	budgetKeys   = []string{"tokens", "cost"}
	callbackKeys = []string{"channel", "chat_id", "session_id"}
	contentKeys  = []string{"parts"}
	partKeys     = []string{"type", "text", "data", "path"}
)

// The values of the enumerated fields, which scanner.word reads without
// allocating.
var (
	typeWords  = []string{string(TypeMessage), string(TypeTask), string(TypeTaskUpdate)}
	stateWords = func() (out []string) {
		for _, st := range taskStates {
			out = append(out, string(st))
		}
		return out
	}()
	partWords = []string{string(PartText), string(PartData), string(PartFile)}
)

// decodeFast decodes data without reflection when it is a message of the
// shapes switchboard and nanobot write, giving the canonical message that
// the encoding/json path (decodeStd) gives before validation. It reports
// false, having decided nothing, for any input it does not fully
// understand: invalid JSON, a value of the wrong type, a member given twice
// (encoding/json merges those), a name that differs from a field's only in
// case, nesting deeper than maxDepth, a bad timestamp, data after the
// object. Names of no field are skipped, as encoding/json skips them.
func decodeFast(data []byte) (*Message, bool) {
	s := scanner{data: data}
	m := &Message{TTL: DefaultTTL}
	if !s.message(m) || s.skipSpace() != 0 || s.pos != len(data) {
		return nil, false
	}
	canonicalize(m)
	return m, true
}

// The indexes of messageKeys.
const (
	mID = iota
	mFrom
	mTo
	mTimestamp
	mType
	mTTL
	mTrace
	mTask
	mContent
	mCallback
	mReplyTo
	mMetadata
	mThreadID
	mSubject
	mExpectsReply
	mPriority
	mHopCount
	mTaskID
	mReplyBy
	mTraceparent
	mTracestate
	mTaskPath
)

// messageIndex is the index of key in messageKeys, or -1.
func messageIndex(key []byte) int {
	switch string(key) {
	case "id":
		return mID
	case "from":
		return mFrom
	case "to":
		return mTo
	case "timestamp":
		return mTimestamp
	case "type":
		return mType
	case "ttl":
		return mTTL
	case "trace":
		return mTrace
	case "task":
		return mTask
	case "content":
		return mContent
	case "callback":
		return mCallback
	case "reply_to":
		return mReplyTo
	case "metadata":
		return mMetadata
	case "thread_id":
		return mThreadID
	case "subject":
		return mSubject
	case "expects_reply":
		return mExpectsReply
	case "priority":
		return mPriority
	case "hop_count":
		return mHopCount
	case "task_id":
		return mTaskID
	case "reply_by":
		return mReplyBy
	case "traceparent":
		return mTraceparent
	case "tracestate":
		return mTracestate
	case "task_path":
		return mTaskPath
	}
	return -1
}

func (s *scanner) message(m *Message) bool {
	return s.members(messageKeys, messageIndex, func(i int) bool {
		var ok bool
		switch i {
		case mID:
			m.ID, ok = s.strOrNull()
		case mFrom:
			m.From, ok = s.strOrNull()
		case mTo:
			m.To, ok = s.strOrNull()
		case mTimestamp:
			m.Timestamp, _, ok = s.timeOrNull()
		case mType:
			var v string
			v, ok = s.word(typeWords)
			m.Type = Type(v)
		case mTTL:
			var n int
			var set bool
			if n, set, ok = s.integer(); set {
				m.TTL = n
			}
		case mTrace:
			m.Trace, ok = s.stringList()
		case mTask:
			m.Task, ok = s.task()
		case mContent:
			ok = s.content(&m.Content)
		case mCallback:
			m.Callback, ok = s.callback()
		case mReplyTo:
			m.ReplyTo, ok = s.strOrNull()
		case mMetadata:
			m.Metadata, ok = s.objectOrNull()
		case mThreadID:
			m.ThreadID, ok = s.strOrNull()
		case mSubject:
			m.Subject, ok = s.strOrNull()
		case mExpectsReply:
			m.ExpectsReply, ok = s.boolean()
		case mPriority:
			m.Priority, _, ok = s.integer()
		case mHopCount:
			m.HopCount, _, ok = s.integer()
		case mTaskID:
			m.TaskID, ok = s.strOrNull()
		case mReplyBy:
			m.ReplyBy, ok = s.timePtr()
		case mTraceparent:
			m.Traceparent, ok = s.strOrNull()
		case mTracestate:
			m.Tracestate, ok = s.strOrNull()
		case mTaskPath:
			m.TaskPath, ok = s.stringList()
		}
		return ok
	})
}
