package agent

import "sync"

// NoticeDelegated is the Event of a Notice that says this agent handed
// work to another agent (the delegation tool did: see Turn.Conclude).
const NoticeDelegated = "delegated"

// Notice is news of delegated work that the agent loop tells the person
// from a template, without asking the model: that the work was handed
// over (a tool concluded its call, Turn.Conclude), or that the agent it
// went to accepted it, works on it, or has not taken it up yet (a
// bus.KindNotice). Its fields are what a template may show.
type Notice struct {
	// Event is what happened: NoticeDelegated, or the state the task is
	// in ("accepted", "working", "pending": it waits to be taken up).
	Event string
	// Agent is the other agent: the one the work went to.
	Agent string
	// TaskID is the task's id.
	TaskID string
	// Task is the work asked for (for NoticeDelegated).
	Task string
	// Text is what the update says ("" when nothing).
	Text string
	// Reason is why, when the news has one (why a task waits).
	Reason string
}

// conclusions are the notices of a turn's tool calls, by call id.
type conclusions struct {
	mu sync.Mutex
	by map[string]Notice
}

// Conclude tells the loop that the tool call callID did all that was asked
// of it, and what to tell the person about it: when every call the model
// asked for in one step concluded, the loop ends the turn there and tells
// the person the notices, from its templates, without another model call
// (unless it is configured to put notices through the model). A tool that
// hands work to another agent concludes this way, with a Notice of Event
// NoticeDelegated naming the task and the agent: its result comes back
// later, as news the model answers then. Hooks read it too
// (Turn.Conclusion, once the call ended): the tasks a turn opened.
func (t *Turn) Conclude(callID string, n Notice) {
	if t == nil {
		return
	}
	t.concluded.mu.Lock()
	defer t.concluded.mu.Unlock()
	if t.concluded.by == nil {
		t.concluded.by = map[string]Notice{}
	}
	t.concluded.by[callID] = n
}

// Conclusion returns the notice of tool call callID, if it concluded.
func (t *Turn) Conclusion(callID string) (Notice, bool) {
	if t == nil {
		return Notice{}, false
	}
	t.concluded.mu.Lock()
	defer t.concluded.mu.Unlock()
	n, ok := t.concluded.by[callID]
	return n, ok
}
