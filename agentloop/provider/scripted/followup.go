package scripted

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/switchboard-dev/switchboard/agent"
)

var delegatedResult = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`delegated task (\S+) to (\S+?)[;.,]?(?:\s|$)`) })

// agentCard is the part of a list_agents entry the provider reads.
type agentCard struct {
	ID           string   `json:"id"`
	Capabilities []string `json:"capabilities"`
	Status       string   `json:"status"`
	FreeSlots    int      `json:"free_slots"`
	You          bool     `json:"you"`
}

// afterTools answers once the tools asked for have run: the results at the
// end of msgs, after the assistant message that called them.
func afterTools(msgs []agent.Message) string {
	end := len(msgs)
	start := end
	for start > 0 && msgs[start-1].Role == agent.RoleTool {
		start--
	}
	if start == 0 || msgs[start-1].Role != agent.RoleAssistant {
		return HelpText
	}
	calls := map[string]agent.ToolCall{}
	for _, c := range msgs[start-1].ToolCalls {
		calls[c.ID] = c
	}
	var lines []string
	for _, res := range msgs[start:end] {
		lines = append(lines, followUp(calls[res.ToolCallID], res.Content))
	}
	return strings.Join(lines, "\n")
}

// followUp turns one tool result into a sentence for the user.
func followUp(call agent.ToolCall, result string) string {
	failure, failed := strings.CutPrefix(result, "error: ")
	switch call.Name {
	case toolDelegate:
		if failed {
			return "I could not delegate that: " + failure
		}
		var args struct {
			Task string `json:"task"`
		}
		_ = json.Unmarshal([]byte(call.Arguments), &args)
		m := delegatedResult().FindStringSubmatch(result)
		if m == nil {
			return result
		}
		return fmt.Sprintf("I asked %s to %s (task %s). I'll tell you when it's done.", m[2], args.Task, m[1])
	case toolEscalation:
		if failed {
			return "I could not answer the escalation: " + failure
		}
		return "" // decided: nothing to tell the agent that escalated
	case toolListAgents:
		if failed {
			return "I could not list the agents: " + failure
		}
		return summarizeAgents(result)
	}
	return result
}

// summarizeAgents turns list_agents' JSON into one sentence.
func summarizeAgents(result string) string {
	var cards []agentCard
	if err := json.Unmarshal([]byte(result), &cards); err != nil {
		return result
	}
	var others []string
	for _, c := range cards {
		if c.You {
			continue
		}
		caps := "no capabilities listed"
		if len(c.Capabilities) > 0 {
			caps = strings.Join(c.Capabilities, ", ")
		}
		others = append(others, fmt.Sprintf("%s (%s; %s, %d free slots)", c.ID, caps, c.Status, c.FreeSlots))
	}
	if len(others) == 0 {
		return "No other agents are online."
	}
	return "Online agents: " + strings.Join(others, "; ") + "."
}
