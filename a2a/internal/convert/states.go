package convert

import (
	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// ToA2A is the A2A state of a mailbox task state: pending is submitted,
// accepted and working are working, and the four ends are the same.
// Anything else (a state a newer peer invented) reads as working: the task
// has not ended as far as anyone said.
func ToA2A(s envelope.TaskState) a2a.TaskState {
	switch s {
	case envelope.StatePending:
		return a2a.TaskStateSubmitted
	case envelope.StateCompleted:
		return a2a.TaskStateCompleted
	case envelope.StateFailed:
		return a2a.TaskStateFailed
	case envelope.StateRejected:
		return a2a.TaskStateRejected
	case envelope.StateCanceled:
		return a2a.TaskStateCanceled
	}
	return a2a.TaskStateWorking
}

// ToMailbox is the mailbox state a task of a remote A2A agent is reported
// in, and ok false when the state is not reported as one (submitted, the
// unspecified state). A worker can end a mailbox task only completed,
// failed or canceled (it accepted the task already): a remote rejection
// is a failure, and so is a remote that wants authentication the
// participant does not have. input-required is not a state of a mailbox
// task: the participant asks the delegator instead and reports working.
func ToMailbox(s a2a.TaskState) (state envelope.TaskState, ok bool) {
	switch s {
	case a2a.TaskStateWorking, a2a.TaskStateInputRequired:
		return envelope.StateWorking, true
	case a2a.TaskStateCompleted:
		return envelope.StateCompleted, true
	case a2a.TaskStateFailed, a2a.TaskStateRejected, a2a.TaskStateAuthRequired:
		return envelope.StateFailed, true
	case a2a.TaskStateCanceled:
		return envelope.StateCanceled, true
	}
	return "", false
}

// Short is the lower-case name of an A2A state without its prefix
// ("input-required"), as people and the v0.3 protocol write it.
func Short(s a2a.TaskState) string {
	switch s {
	case a2a.TaskStateSubmitted:
		return "submitted"
	case a2a.TaskStateWorking:
		return "working"
	case a2a.TaskStateInputRequired:
		return "input-required"
	case a2a.TaskStateAuthRequired:
		return "auth-required"
	case a2a.TaskStateCompleted:
		return "completed"
	case a2a.TaskStateFailed:
		return "failed"
	case a2a.TaskStateRejected:
		return "rejected"
	case a2a.TaskStateCanceled:
		return "canceled"
	}
	return "unspecified"
}
