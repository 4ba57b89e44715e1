package scripted

import (
	"encoding/json"
	"regexp"
	"strings"
)

type cmdKind int

const (
	cmdNone cmdKind = iota
	cmdDelegate
	cmdList
)

// command is what a user message asks for.
type command struct {
	kind cmdKind
	args map[string]any // delegate_task's arguments
}

var (
	askSomeone = regexp.MustCompile(`(?is)^\s*(?:please\s+)?ask\s+(?:someone|somebody|anyone|an agent|any agent)\s+(?:who|that)\s+can\s+(.+?)\s+to\s+(.+?)\s*$`)
	askAgent   = regexp.MustCompile(`(?is)^\s*(?:please\s+)?ask\s+(\S+?)[,:]?\s+to\s+(.+?)\s*$`)
	listAgents = regexp.MustCompile(`(?i)\b(?:list(?:\s+the)?\s+agents|who\s+is\s+online|who's\s+online)\b`)
)

// parseCommand recognises "ask someone who can <capability> to <work>",
// "ask <agent> to <work>", "list agents" and "who is online".
func parseCommand(text string) command {
	if m := askSomeone.FindStringSubmatch(text); m != nil {
		capability := strings.ToLower(strings.TrimSpace(m[1]))
		if c, ok := verbCapability[capability]; ok {
			capability = c // "who can sort" means the capability "sorting"
		}
		return command{kind: cmdDelegate, args: map[string]any{"capability": capability, "task": cleanWork(m[2])}}
	}
	if m := askAgent.FindStringSubmatch(text); m != nil {
		return command{kind: cmdDelegate, args: map[string]any{"to": m[1], "task": cleanWork(m[2])}}
	}
	if listAgents.MatchString(text) {
		return command{kind: cmdList}
	}
	return command{}
}

func cleanWork(s string) string { return strings.TrimRight(strings.TrimSpace(s), ".!?") }

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings always encode
	}
	return string(data)
}
