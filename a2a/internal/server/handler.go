package server

import (
	"context"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// handler is the SDK's request handler of a fronted agent, with one
// change: the SDK subscribes a client only to a task an execution works
// on, and an open task of the gateway may have none for a while (just
// after a restart, before its execution resumes it). SubscribeToTask then
// has an execution resume the task and subscribes again. A task waiting
// for input has none on purpose (the SDK ends an execution there, so that
// the client can answer), and is not resumed for a subscriber.
type handler struct {
	a2asrv.RequestHandler
	s     *Server
	agent string
}

// SubscribeToTask implements a2asrv.RequestHandler.
func (h handler) SubscribeToTask(ctx context.Context, req *a2a.SubscribeToTaskRequest) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		retried := false
		for {
			first := true
			for ev, err := range h.RequestHandler.SubscribeToTask(ctx, req) {
				if err != nil && first && !retried && req != nil && h.resumable(req.ID) {
					break
				}
				first = false
				if !yield(ev, err) {
					return
				}
			}
			if !first || retried {
				return
			}
			retried = true
			if err := h.s.feeds.waitActive(ctx, req.ID); err != nil {
				yield(nil, err)
				return
			}
		}
	}
}

// resumable reports whether task id is an open task of the agent that no
// input waits for.
func (h handler) resumable(id a2a.TaskID) bool {
	r, ok := h.s.tasks.get(id)
	if !ok || r.Agent != h.agent {
		return false
	}
	st := r.Task.Status.State
	return !st.Terminal() && st != a2a.TaskStateInputRequired
}
