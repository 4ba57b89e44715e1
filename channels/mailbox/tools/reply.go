package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// ReplyArgs are the arguments of reply.
type ReplyArgs struct {
	MessageID string         `json:"message_id,omitempty" jsonschema:"the id of the message you answer (default: the one you are handling now)"`
	Text      string         `json:"text" jsonschema:"the answer (for a failed task: why)"`
	State     string         `json:"state,omitempty" jsonschema:"for a task: completed (the default), failed or working (progress)"`
	Data      map[string]any `json:"data,omitempty" jsonschema:"optional structured data"`
}

// Reply is the reply tool: it answers a message from another agent, the
// one the loop's turn handles unless message_id names one handed to the
// caller. A message gets a reply in its thread (which settles a request);
// a task is ended with state completed (the default; the text is the
// result) or failed (the text is the reason), or told of progress
// (working). Once the turn's message is answered, the loop does not send
// the turn's final text again.
var Reply = Tool[ReplyArgs]{
	Name: "reply",
	Description: "Answer the agent whose message or task you are handling now (or the message message_id " +
		"names). For a task: state completed (the text is the result), failed (the text is the reason) or " +
		"working (progress); without this tool your final answer completes the task.",
	Use: "answer the agent whose message or task you are handling now",
	Run: reply,
}

func reply(ctx context.Context, c Caller, in ReplyArgs) (Result, error) {
	mt, err := c.answered(in.MessageID)
	if err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(in.Text) == "" && in.Data == nil {
		return Result{}, errors.New("text is empty: write the answer")
	}
	if !mt.IsTask() || mt.Task == nil {
		if in.State != "" {
			return Result{}, fmt.Errorf("state is for tasks; this is a %s from %s", mt.Type, mt.From)
		}
		msg, err := c.Mailbox.Post(ctx, route.Request{To: mt.From, Text: in.Text, Parts: dataParts(in.Data),
			Parent: mt, ReplyTo: mt.MessageID})
		if err != nil {
			return Result{}, err
		}
		c.markAnswered(mt)
		return Result{Text: fmt.Sprintf("replied to %s (message %s)", mt.From, msg.ID),
			Data: Sent{MessageID: msg.ID, To: []string{msg.To}, ThreadID: msg.ThreadID}}, nil
	}
	state := envelope.TaskState(in.State)
	text, reason := in.Text, ""
	switch state {
	case "":
		state = envelope.StateCompleted
	case envelope.StateCompleted, envelope.StateWorking:
	case envelope.StateFailed:
		text, reason = "", in.Text
	default:
		return Result{}, fmt.Errorf("state %q: want completed, failed or working", in.State)
	}
	return c.finish(ctx, mt.Task.ID, state, text, reason, dataParts(in.Data))
}

// answered returns the message a reply answers: the one id names, or the
// one the turn handles.
func (c Caller) answered(id string) (*meta.Meta, error) {
	own := c.parent()
	switch {
	case id == "" && own != nil:
		return own, nil
	case id == "" && c.Turn != nil:
		return nil, errors.New("there is no agent to reply to: this message is not from the mailbox; " +
			"your final answer goes to " + c.inbound().Channel)
	case id == "":
		return nil, errors.New("message_id is required: the id of the message you answer (check_inbox lists the ids)")
	case own != nil && own.MessageID == id:
		return own, nil
	case c.Handed != nil:
		if mt, ok := c.Handed(id); ok {
			return &mt, nil
		}
	case c.Turn != nil:
		return nil, fmt.Errorf("message %q is not the one you are handling now: leave message_id out to answer that one", id)
	}
	return nil, fmt.Errorf("no message %q was handed to you (check_inbox lists the ids)", id)
}

// markAnswered tells the loop that the turn's own message is answered.
func (c Caller) markAnswered(mt *meta.Meta) {
	if own := c.parent(); own != nil && own.MessageID == mt.MessageID {
		c.Turn.MarkAnswered()
	}
}

// UpdateArgs are the arguments of update_task.
type UpdateArgs struct {
	TaskID string         `json:"task_id" jsonschema:"the task, as check_inbox shows it"`
	State  string         `json:"state" jsonschema:"accept, progress, complete or fail"`
	Text   string         `json:"text,omitempty" jsonschema:"the progress note, the result, or what went wrong"`
	Data   map[string]any `json:"data,omitempty" jsonschema:"optional structured result"`
	Reason string         `json:"reason,omitempty" jsonschema:"with fail: why, in a few words"`
}

// UpdateTask is the update_task tool: it reports on a task this agent was
// given: accept (again), progress, complete (the result, as text and
// data) or fail (with the reason); complete and fail end the task.
var UpdateTask = Tool[UpdateArgs]{
	Name: "update_task",
	Description: "Report on a task you were given: state progress (with text), complete (the result, as " +
		"text and data) or fail (with the reason). complete and fail end the task.",
	Use: "report progress on a task you were given, or end it",
	Run: updateTask,
}

// taskStates maps update_task's states to the task states sent.
var taskStates = map[string]envelope.TaskState{
	"accept": envelope.StateAccepted, "accepted": envelope.StateAccepted,
	"progress": envelope.StateWorking, "working": envelope.StateWorking,
	"complete": envelope.StateCompleted, "completed": envelope.StateCompleted,
	"fail": envelope.StateFailed, "failed": envelope.StateFailed,
}

func updateTask(ctx context.Context, c Caller, in UpdateArgs) (Result, error) {
	state, ok := taskStates[strings.ToLower(strings.TrimSpace(in.State))]
	if !ok {
		return Result{}, fmt.Errorf("state %q: want accept, progress, complete or fail", in.State)
	}
	reason := in.Reason
	if state == envelope.StateFailed && reason == "" {
		reason = in.Text
	}
	return c.finish(ctx, in.TaskID, state, in.Text, reason, dataParts(in.Data))
}

// finish sends the update of task taskID that state says (ending it when
// state is terminal): the one operation of reply to a task and of
// update_task.
func (c Caller) finish(ctx context.Context, taskID string, state envelope.TaskState, text, reason string, parts []envelope.Part) (Result, error) {
	msg, err := c.Mailbox.FinishTask(ctx, taskID, state, text, reason, parts)
	if err != nil {
		return Result{}, err
	}
	data := map[string]any{"task_id": taskID, "state": state, "message_id": msg.ID, "to": msg.To}
	own := c.parent()
	from := msg.To
	if own != nil && own.Task != nil && own.Task.ID == taskID {
		from = own.From
		if state.Terminal() {
			c.Turn.MarkAnswered()
		}
	}
	if state.Terminal() {
		return Result{Text: fmt.Sprintf("task %s from %s is %s", taskID, from, state), Data: data}, nil
	}
	return Result{Text: fmt.Sprintf("told %s that task %s is %s", from, taskID, state), Data: data}, nil
}
