package tools

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// AnswerEscalationArgs are the arguments of answer_escalation.
type AnswerEscalationArgs struct {
	ID     string `json:"id" jsonschema:"the escalation's id, as its message gives it"`
	Action string `json:"action" jsonschema:"retry (the same worker or group again), reassign (to agent), cancel (the user is told), or takeover (you do the task yourself)"`
	Agent  string `json:"agent,omitempty" jsonschema:"for reassign: the agent that gets the task"`
	Reason string `json:"reason,omitempty" jsonschema:"why, for the audit log and the user"`
}

// Escalated is what answer_escalation tells an MCP client.
type Escalated struct {
	Escalation store.Escalation `json:"escalation"`
}

// AnswerEscalation is the answer_escalation tool: a level that an
// escalation of stuck work asks (its message says so) decides what
// becomes of the task. The agent that escalated acts on it within
// seconds; the first decision stands.
var AnswerEscalation = Tool[AnswerEscalationArgs]{
	Name: "answer_escalation",
	Description: "Decide an escalation of stuck work that was sent to you (a message \"Escalation ID: ...\"): " +
		"retry (the same worker or group tries again), reassign (name the agent that gets it), cancel (the task " +
		"is dropped and the user told), or takeover (the task is sent to you to do yourself). The first decision stands.",
	Use: "decide an escalation of stuck work sent to you",
	Run: func(ctx context.Context, c Caller, in AnswerEscalationArgs) (Result, error) {
		e, err := c.Mailbox.DecideEscalation(ctx, in.ID, store.EscalationDecision{Action: in.Action, Agent: in.Agent, Reason: in.Reason})
		if err != nil {
			return Result{}, err
		}
		what := in.Action
		if in.Action == store.ActReassign {
			what += " to " + in.Agent
		}
		return Result{Text: fmt.Sprintf("decided escalation %s of %s's task %s: %s; %s acts on it now", e.ID, e.Agent, e.TaskID, what, e.Agent),
			Data: Escalated{Escalation: e}}, nil
	},
}
