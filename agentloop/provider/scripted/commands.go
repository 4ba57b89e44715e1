package scripted

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
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
	askSomeone = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?is)^\s*(?:please\s+)?ask\s+(?:someone|somebody|anyone|an agent|any agent)\s+(?:who|that)\s+can\s+(.+?)\s+to\s+(.+?)\s*$`)
	})
	askAgent = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?is)^\s*(?:please\s+)?ask\s+(\S+?)[,:]?\s+to\s+(.+?)\s*$`)
	})
	listAgents = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(?:list(?:\s+the)?\s+agents|who\s+is\s+online|who's\s+online)\b`)
	})
	within = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(.+?),?\s+within\s+(\d+(?:\.\d+)?)\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|h)$`)
	})
)

// unitSeconds maps the units of "within N <unit>" to seconds.
var unitSeconds = map[byte]float64{'s': 1, 'm': 60, 'h': 3600}

// parseCommand recognises "ask someone who can <capability> to <work>",
// "ask <agent> to <work>" (either may end in "within N seconds", minutes
// or hours: the task's deadline), "list agents" and "who is online".
func parseCommand(text string) command {
	if m := askSomeone().FindStringSubmatch(text); m != nil {
		capability := strings.ToLower(strings.TrimSpace(m[1]))
		if c, ok := verbCapability[capability]; ok {
			capability = c // "who can sort" means the capability "sorting"
		}
		return delegation(map[string]any{"capability": capability}, m[2])
	}
	if m := askAgent().FindStringSubmatch(text); m != nil {
		return delegation(map[string]any{"to": m[1]}, m[2])
	}
	if listAgents().MatchString(text) {
		return command{kind: cmdList}
	}
	return command{}
}

// delegation completes delegate_task's arguments with the work and, when
// the work ends in "within N <unit>", its deadline.
func delegation(args map[string]any, work string) command {
	work = cleanWork(work)
	if m := within().FindStringSubmatch(work); m != nil {
		n, _ := strconv.ParseFloat(m[2], 64) // the pattern admits only numbers
		work = cleanWork(m[1])
		args["deadline_seconds"] = n * unitSeconds[strings.ToLower(m[3])[0]]
	}
	args["task"] = work
	return command{kind: cmdDelegate, args: args}
}

func cleanWork(s string) string { return strings.TrimRight(strings.TrimSpace(s), ".!?") }

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings always encode
	}
	return string(data)
}
