package agentloop

import "github.com/switchboard-dev/switchboard/agent"

// ToolStatus tells the model about tools that cannot be used right now,
// such as those of an MCP server that is down or still connecting. The
// loop asks it once per turn for a note, which the model reads in a
// message of its own just before the turn's message (never in the system
// prompt, which stays the same from turn to turn so that providers can
// cache it), and asks it about a tool call whose name the registry does
// not hold.
type ToolStatus interface {
	// Note is a short note on the tools that cannot be used now, "" when
	// every tool is there.
	Note() string
	// Unavailable says why the tool called name, which the registry does
	// not hold, cannot be called now; ok is false when name is unknown to
	// it too.
	Unavailable(name string) (reason string, ok bool)
}

// withNote returns msgs with note as a message of its own just before
// the message at i (the turn's), for one request: msgs itself, and so the
// history, keep no note. A message of its own leaves the turn's words as
// they were (a provider that reads them, as the scripted one does, reads
// the user's words only); providers that want roles to alternate merge
// the two, as the Anthropic one does.
func withNote(msgs []agent.Message, i int, note string) []agent.Message {
	if note == "" {
		return msgs
	}
	out := make([]agent.Message, 0, len(msgs)+1)
	out = append(out, msgs[:i]...)
	out = append(out, agent.Message{Role: msgs[i].Role, Content: "[" + note + "]"})
	return append(out, msgs[i:]...)
}
