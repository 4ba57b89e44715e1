package budget

import (
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// ref is what a turn's inbound message tells the keeper.
type ref struct {
	messageID, threadID, taskID string
	// account is the task the turn is charged to: the task it works on
	// ("" for a user's message). An update routed back to the conversation
	// a subtask was delegated from is charged to the task that
	// conversation works on (meta.Tree), not to the subtask: that one's
	// budget is its worker's to count.
	account string
	// budget is the budget a task message carries (nil otherwise).
	budget *envelope.Budget
}

// refOf reads the mailbox metadata of in, if any.
func refOf(in bus.InboundMessage) ref {
	r := ref{messageID: in.ID}
	mt, ok := meta.Of(in.Metadata)
	if !ok {
		return r
	}
	r.messageID, r.threadID, r.taskID = mt.MessageID, mt.ThreadID, mt.TaskOf()
	if mt.Routed() {
		if mt.Tree != nil {
			r.account = mt.Tree.Task
		}
		return r
	}
	r.account = r.taskID
	if mt.IsTask() && mt.Task != nil {
		r.budget = mt.Task.Budget
	}
	return r
}
