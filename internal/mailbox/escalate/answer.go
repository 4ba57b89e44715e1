package escalate

import (
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// MaxAnswerWords is the longest chat message read as an answer to an
// escalation waiting in the chat: a longer one is a message like any
// other, for the agent.
const MaxAnswerWords = 5

// Answer is a person's answer to an escalation, read from the chat.
type Answer struct {
	// Action is store.ActRetry, ActReassign, ActCancel or ActTakeOver.
	Action string
	// Agent is who a reassigned task goes to.
	Agent string
	// ID is the escalation the answer names, when it names one (its
	// last word); empty: the oldest waiting in the chat.
	ID string
}

// Options is how the answers are worded in every question.
const Options = `1 = retry, 2 AGENT = reassign to AGENT, 3 = cancel, 4 = take over`

// ParseAnswer reads a chat message as an answer: "1" or "retry", "2
// AGENT" or "reassign [to] AGENT", "3" or "cancel", "4" or "take over"
// (or "takeover"), optionally followed by the escalation's id (ids
// lists those that may be named). attempt is false for a message that
// is no answer at all (empty, or longer than MaxAnswerWords words): it
// goes its usual way. For an attempt that cannot be read, err says why,
// in words to tell the person.
func ParseAnswer(text string, ids []string) (a Answer, attempt bool, err error) {
	f := strings.Fields(strings.ToLower(strings.TrimSpace(text)))
	if len(f) == 0 || len(f) > MaxAnswerWords {
		return Answer{}, false, nil
	}
	for i := range f {
		f[i] = strings.Trim(f[i], ".!?,;:\"'")
	}
	if n := len(f); n > 1 {
		for _, id := range ids {
			if strings.EqualFold(f[n-1], id) {
				a.ID, f = id, f[:n-1]
				break
			}
		}
	}
	bad := func(format string, args ...any) (Answer, bool, error) {
		return Answer{}, true, fmt.Errorf(format, args...)
	}
	if len(f) == 0 {
		return bad("I need an answer before the id: %s", Options)
	}
	switch w := f[0]; {
	case w == "1" || w == "retry" || w == "again":
		a.Action = store.ActRetry
	case w == "2" || w == "reassign" || w == "give":
		a.Action = store.ActReassign
		rest := f[1:]
		if len(rest) > 0 && (rest[0] == "to" || rest[0] == "it") {
			rest = rest[1:]
		}
		if len(rest) > 0 && rest[0] == "to" {
			rest = rest[1:]
		}
		if len(rest) != 1 {
			return bad("reassign to whom? Answer \"2 AGENT\" (or \"reassign AGENT\") with the agent's id")
		}
		if err := envelope.ValidateAgentID(rest[0]); err != nil {
			return bad("%q is not an agent id: answer \"2 AGENT\"", rest[0])
		}
		a.Agent = rest[0]
		return a, true, nil
	case w == "3" || w == "cancel" || w == "drop":
		a.Action = store.ActCancel
	case w == "4" || w == "takeover" || w == "take" && len(f) > 1 && f[1] == "over":
		a.Action = store.ActTakeOver
		if w == "take" {
			f = f[1:]
		}
	default:
		return bad("I did not understand %q. Answer %s.", strings.Join(f, " "), Options)
	}
	if len(f) > 1 {
		return bad("I did not understand %q. Answer %s.", strings.Join(f, " "), Options)
	}
	return a, true, nil
}
