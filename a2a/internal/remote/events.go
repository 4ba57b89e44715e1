package remote

import (
	"context"
	"errors"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// consume takes events until the task ends or waits for input, the
// events end, or one is an error (logged: the run follows the task
// again, or ends, as do decides).
func (r *run) consume(ctx context.Context, events iter.Seq2[a2a.Event, error]) {
	for ev, err := range events {
		if err != nil {
			if ctx.Err() == nil {
				r.p.log.Warn("a2a task's events broke off", "task", r.id(), "remote", r.remoteID, "err", err)
				if r.remoteID == "" || errors.Is(err, a2a.ErrTaskNotFound) {
					r.state, r.status = a2a.TaskStateFailed, "the A2A agent at "+r.p.cfg.URL+" failed: "+err.Error()
				}
			}
			return
		}
		r.apply(ctx, ev)
		if r.state.Terminal() || r.message != nil || r.state == a2a.TaskStateInputRequired || r.state == a2a.TaskStateAuthRequired {
			return
		}
	}
}

// apply takes one event into what the run knows of the remote task, and
// tells the delegator that the task is worked on, and of its progress.
func (r *run) apply(ctx context.Context, ev a2a.Event) {
	switch e := ev.(type) {
	case *a2a.Message:
		if e.TaskID == "" {
			r.message = e
			return
		}
	case *a2a.Task:
		r.artifacts = e.Artifacts
		r.setStatus(e.Status)
	case *a2a.TaskStatusUpdateEvent:
		r.setStatus(e.Status)
	case *a2a.TaskArtifactUpdateEvent:
		r.addArtifact(e)
	}
	if info := ev.TaskInfo(); r.remoteID == "" && info.TaskID != "" {
		r.remoteID, r.contextID = string(info.TaskID), info.ContextID
		s := sent{RemoteID: r.remoteID, ContextID: r.contextID, Sent: r.p.clk.Now()}
		if err := r.p.open.set(ctx, r.id(), s); err != nil {
			r.p.log.Warn("a2a task not recorded; after a restart it would be sent again", "task", r.id(), "err", err)
		}
	}
	if r.state == a2a.TaskStateWorking && (!r.working || r.status != "" && r.status != r.progress) {
		r.working, r.progress = true, r.status
		if _, err := r.p.ch.FinishTask(ctx, r.id(), envelope.StateWorking, r.status, "", nil); err != nil && ctx.Err() == nil {
			r.p.log.Warn("progress of a2a task not told", "task", r.id(), "err", err)
		}
	}
}

// setStatus notes a status of the remote task.
func (r *run) setStatus(st a2a.TaskStatus) {
	r.state = st.State
	r.status = convert.MessageText(st.Message)
}

// addArtifact applies an artifact event: a new artifact, a replaced one,
// or more parts of one.
func (r *run) addArtifact(e *a2a.TaskArtifactUpdateEvent) {
	if e.Artifact == nil {
		return
	}
	for _, a := range r.artifacts {
		if a.ID == e.Artifact.ID {
			if e.Append {
				a.Parts = append(a.Parts, e.Artifact.Parts...)
			} else {
				*a = *e.Artifact
			}
			return
		}
	}
	a := *e.Artifact
	r.artifacts = append(r.artifacts, &a)
}
