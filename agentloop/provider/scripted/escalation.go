package scripted

import (
	"regexp"
	"strings"
	"sync"

	"github.com/switchboard-dev/switchboard/agent"
)

// toolEscalation is the tool that answers an escalation.
const toolEscalation = "answer_escalation"

var (
	escalationID   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Escalation (\S+): `) })
	escalationCand = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Could take it: (.+)$`) })
)

// answerEscalation answers an escalation of stuck work sent to the agent
// (a message "Escalation ID: ...", see the mailbox's escalations) with
// the answer_escalation tool: the task is reassigned to the first agent
// the message says could take it, or, with none, taken over. ok is false
// for any other text, or without the tool.
func answerEscalation(req agent.Request, text string) (*agent.Response, bool) {
	m := escalationID().FindStringSubmatch(text)
	if m == nil || !hasTool(req.Tools, toolEscalation) {
		return nil, false
	}
	args := map[string]any{"id": m[1], "action": "takeover", "reason": "no one else could take it"}
	if c := escalationCand().FindStringSubmatch(text); c != nil {
		first := strings.TrimSpace(strings.Split(c[1], ",")[0])
		args = map[string]any{"id": m[1], "action": "reassign", "agent": first, "reason": first + " could take it"}
	}
	return callTool(req, toolEscalation, args), true
}
