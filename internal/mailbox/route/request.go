package route

import (
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// Request is one message to post. Only To is required.
type Request struct {
	To   string
	Type envelope.Type // default message
	Text string
	// Parts are added after the text part.
	Parts []envelope.Part
	// TaskID names the task of a task or task_update (a new task gets a
	// fresh id); TaskState defaults to pending for a task and completed for
	// a task_update; Reason explains a rejection or failure.
	TaskID    string
	TaskState envelope.TaskState
	Reason    string
	// Deadline, when set, is when a task must be done.
	Deadline time.Time
	// Callback names the conversation a task or a request began in; the
	// task's results, the request's reply and a notice that the reply is
	// overdue are routed back there. Only tasks carry it on the wire.
	Callback *envelope.Callback
	// ReplyTo is the id of the message this one answers.
	ReplyTo string
	// Parent is the message being handled when this one is sent, if any: a
	// forward or delegation inherits its trace and ttl.
	Parent *meta.Meta
	// Tree is the task tree a new task joins, when it is not that of
	// Parent (see meta.TreeOf): the routed conversation of a delegated task.
	Tree *meta.Tree
	// TTL overrides the hop budget of a new message (0: the default).
	TTL int
	// Subject is a kebab-case topic (envelope.ValidateSubject).
	Subject string
	// ExpectsReply makes the message a request: its receiver owes a reply,
	// due by ReplyBy (default: now + channels.mailbox.replyTimeout).
	ExpectsReply bool
	ReplyBy      time.Time
	// Priority is 0 (default) to 3; pending messages of higher priority
	// are taken first.
	Priority int
	// ThreadID joins a new message to an existing thread (a reply always
	// joins the thread of the message it answers).
	ThreadID string
	// Budget bounds what a task may spend on models (see envelope.Budget);
	// nil gives a task sent while handling a budgeted task (Parent) that
	// task's budget. A task's final task_update may carry it too: the
	// budget the task had, beside Used.
	Budget *envelope.Budget
	// Used is what a task has spent on models, reported in its final
	// task_update (see envelope.Task.Used); only task updates carry it.
	Used *envelope.Budget
	// Via is the group target a task's recipient was picked from
	// ("any:NAME" or "cap:NAME"): a task not accepted in time, or whose
	// worker goes offline, is offered to the next holder of NAME.
	Via string
}
