package agentloop

import "github.com/switchboard-dev/switchboard/agent"

// ToolStatus tells the model about tools that cannot be used right now,
// such as those of an MCP server that is down or still connecting. The
// loop asks it once per turn for a note, which the model reads after the
// turn's message (never in the system prompt, which stays the same from
// turn to turn so that providers can cache it), and asks it about a tool
// call whose name the registry does not hold.
type ToolStatus interface {
	// Note is a short note on the tools that cannot be used now, "" when
	// every tool is there.
	Note() string
	// Unavailable says why the tool called name, which the registry does
	// not hold, cannot be called now; ok is false when name is unknown to
	// it too.
	Unavailable(name string) (reason string, ok bool)
}

// withNote returns msgs with note added to the message at i, for one
// request: msgs itself, and so the history, keep the message as it was.
func withNote(msgs []agent.Message, i int, note string) []agent.Message {
	if note == "" {
		return msgs
	}
	out := append([]agent.Message(nil), msgs...)
	out[i].Content += "\n\n[" + note + "]"
	return out
}
