package escalate

import (
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// The reasons of failures that other parts of the mailbox give, and the
// trigger each names.
const (
	// StalemateReason begins the reason of a task failed as a stalemate.
	StalemateReason = "stalemate:"
	// DeadlockReason begins the reason of a task failed to break a
	// deadlock.
	DeadlockReason = "deadlock broken:"
)

// TriggerOf returns the trigger of a final update of a delegated task:
// its state (rejected or failed) and reason; "" for any other state.
func TriggerOf(state envelope.TaskState, reason string) string {
	switch {
	case state == envelope.StateRejected:
		return Rejected
	case state != envelope.StateFailed:
		return ""
	case strings.HasPrefix(reason, StalemateReason):
		return Stalemate
	case strings.HasPrefix(reason, DeadlockReason):
		return Deadlock
	}
	return Failed
}

// what says what happened to the task, in a few words.
func what(trigger string) string {
	switch trigger {
	case Rejected:
		return "no one would take it"
	case NotAccepted:
		return "no one took it up in time"
	case Overdue:
		return "no result came by its deadline"
	case Stalemate:
		return "the agents on it went round in circles"
	case Deadlock:
		return "it was stuck in a deadlock"
	}
	return "it failed"
}

// Tried says who had the task and what each said: "bob: rejected
// (unauthorized); carol: failed (...)".
func Tried(e store.Escalation) string {
	var parts []string
	for _, a := range e.Attempts {
		s := a.Agent + ": " + a.Said
		if a.Reason != "" {
			s += " (" + a.Reason + ")"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "nobody"
	}
	return strings.Join(parts, "; ")
}

// Quote shortens the text of a task for a sentence.
func Quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:117]) + "..."
	}
	return `"` + s + `"`
}

// next says what happens without an answer from level i.
func next(e store.Escalation, i int) string {
	if i+1 < len(e.Levels) {
		return "it goes to " + e.Levels[i+1]
	}
	return "the task fails"
}

// AgentQuestion is the text of the escalation message to an agent level:
// the task's context and how to answer. candidates are agents that could
// take the task over.
func AgentQuestion(e store.Escalation, candidates []string, wait time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Escalation %s: %s's task %s is stuck: %s.\n", e.ID, e.Agent, e.TaskID, what(e.Trigger))
	fmt.Fprintf(&b, "Asked: %s\n", Quote(e.Asked))
	fmt.Fprintf(&b, "Tried: %s\n", Tried(e))
	if len(e.Trace) > 0 {
		fmt.Fprintf(&b, "Trace: %s\n", strings.Join(e.Trace, " → "))
	}
	if len(candidates) > 0 {
		fmt.Fprintf(&b, "Could take it: %s\n", strings.Join(candidates, ", "))
	}
	fmt.Fprintf(&b, "Decide with the answer_escalation tool (id %s): retry (the same worker or group again), "+
		"reassign (to an agent you name), cancel (the user is told), or takeover (you do it yourself). "+
		"Without an answer within %s, %s.", e.ID, wait, next(e, e.Level))
	return b.String()
}

// HumanQuestion is the question asked in a person's chat.
func HumanQuestion(e store.Escalation, candidates []string, wait time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your request %s is stuck: %s (%s).", Quote(e.Asked), what(e.Trigger), Tried(e))
	if len(candidates) > 0 {
		fmt.Fprintf(&b, " Could take it: %s.", strings.Join(candidates, ", "))
	}
	fmt.Fprintf(&b, " What now? Answer %s. Without an answer within %s, %s. (escalation %s)",
		Options, wait, next(e, e.Level), e.ID)
	return b.String()
}

// Status is what the user is told, once, when their request is escalated
// to an agent or group (a person is asked the question instead).
func Status(e store.Escalation) string {
	return fmt.Sprintf("Your request %s is stuck: %s (%s). I passed it to %s to decide what happens next; you will hear back here.",
		Quote(e.Asked), what(e.Trigger), Tried(e), e.At())
}

// Unanswered is the reason of a task whose last level did not answer:
// what made it stuck, and that no one decided.
func Unanswered(e store.Escalation) string {
	return fmt.Sprintf("%s (%s); escalated to %s, no one decided in time", what(e.Trigger), Tried(e), strings.Join(e.Levels, ", "))
}

// Decided says a decision in a sentence: "lead reassigned it to erin".
func Decided(d store.EscalationDecision) string {
	who := d.By
	if who == "" {
		who = "someone"
	}
	var s string
	switch d.Action {
	case store.ActRetry:
		s = who + " had it tried again"
	case store.ActReassign:
		s = who + " reassigned it to " + d.Agent
	case store.ActCancel:
		s = who + " canceled it"
	case store.ActTakeOver:
		s = who + " took it over"
	default:
		s = who + " answered " + d.Action
	}
	if d.Reason != "" {
		s += ": " + d.Reason
	}
	return s
}
