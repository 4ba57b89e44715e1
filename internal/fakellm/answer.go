package fakellm

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// message is the part of a request message the fake reads.
type message struct {
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	ToolCalls []struct {
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	ToolCallID string `json:"tool_call_id"`
}

// text is the message's content as text (a string, or the text of its
// parts).
func (m message) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// tool is the part of a tool definition the fake reads.
type tool struct {
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

// answer is what the fake model says: text, or one tool call.
type answer struct {
	purpose  string
	content  string
	toolName string
	toolArgs string
}

var (
	updateHeader = regexp.MustCompile(`^\[mailbox task_update from (\S+): task (\S+) (\S+)\] ?(.*)`)
	number       = regexp.MustCompile(`-?\d+`)
)

// answer decides the answer to msgs, deterministically.
func (s *Server) answer(msgs []message, tools []tool) answer {
	offered := func(name string) bool {
		return slices.ContainsFunc(tools, func(t tool) bool { return t.Function.Name == name })
	}
	last := msgs[len(msgs)-1]
	text := last.text()
	switch {
	case offered("judge_task"):
		return call("judge", "judge_task", map[string]any{"accept": true, "reason": "sorting is one of my capabilities"})
	case last.Role == "tool":
		return say("after-tool", "I asked "+s.delegate()+" to sort the numbers; I'll tell you when it's done.")
	case last.Role != "user":
		return say("other", "OK.")
	case strings.HasPrefix(text, "[mailbox task from "):
		return say("task", sorted(text))
	case strings.HasPrefix(text, "[Subagent "):
		return say("announce", "Sorted: "+sorted(resultOf(text))+".")
	}
	if m := updateHeader.FindStringSubmatch(text); m != nil {
		who, state, rest := m[1], m[3], m[4]
		purpose := "update:" + state
		switch state {
		case "completed":
			return say(purpose, who+" finished: "+rest)
		case "accepted":
			return say(purpose, who+" accepted the task and is working on it.")
		case "working":
			return say(purpose, who+" is working on it.")
		}
		return say(purpose, who+" reports "+state+": "+rest)
	}
	if strings.Contains(strings.ToLower(text), "sort") {
		task := "sort " + strings.Join(number.FindAllString(text, -1), " ")
		switch {
		case offered("delegate_task"):
			return call("user", "delegate_task", map[string]any{"to": s.delegate(), "task": task})
		case offered("spawn"):
			return call("user", "spawn", map[string]any{"task": task})
		}
		return say("task", sorted(text))
	}
	return say("user", "I can sort numbers.")
}

func (s *Server) delegate() string {
	if s.DelegateTo == "" {
		return "coder"
	}
	return s.DelegateTo
}

func say(purpose, text string) answer { return answer{purpose: purpose, content: text} }

func call(purpose, name string, args map[string]any) answer {
	data, _ := json.Marshal(args)
	return answer{purpose: purpose, toolName: name, toolArgs: string(data)}
}

// sorted returns the numbers in text, sorted, separated by spaces.
func sorted(text string) string {
	var ns []int
	for _, f := range number.FindAllString(text, -1) {
		if n, err := strconv.Atoi(f); err == nil {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.Itoa(n)
	}
	return strings.Join(out, " ")
}

// resultOf returns the Result section of nanobot's subagent announcement.
func resultOf(text string) string {
	_, after, ok := strings.Cut(text, "Result:\n")
	if !ok {
		return text
	}
	res, _, _ := strings.Cut(after, "\n\n")
	return res
}
