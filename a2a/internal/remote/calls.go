package remote

import (
	"context"
	"errors"
	"iter"

	"github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/tracing"
)

// start sends the task to the agent, or, when it was sent before the
// participant last stopped, follows the task it became.
func (r *run) start(ctx context.Context) iter.Seq2[a2a.Event, error] {
	if s, ok := r.p.open.get(r.id()); ok && s.RemoteID != "" {
		r.remoteID, r.contextID = s.RemoteID, s.ContextID
		r.p.log.Info("a2a task resumed", "task", r.id(), "remote", r.remoteID)
		return r.follow(ctx)
	}
	msg := a2a.NewMessage(a2a.MessageRoleUser, convert.ToA2AParts(r.task.Parts)...)
	if len(msg.Parts) == 0 {
		msg.Parts = []*a2a.Part{a2a.NewTextPart(r.in.Content)}
	}
	hop := convert.Hop{Task: r.id(), From: r.task.From, TaskPath: r.task.TaskPath, Budget: r.task.Task.Budget}
	msg.Metadata = convert.WithTrace(convert.WithHop(nil, hop), tracing.Inject(ctx))
	return r.send(ctx, msg)
}

// send sends msg, streaming when the agent streams.
func (r *run) send(ctx context.Context, msg *a2a.Message) iter.Seq2[a2a.Event, error] {
	client, card := r.p.current()
	req := &a2a.SendMessageRequest{Message: msg}
	if card.Capabilities.Streaming && !r.p.cfg.Poll {
		return client.SendStreamingMessage(ctx, req)
	}
	req.Config = &a2a.SendMessageConfig{ReturnImmediately: true}
	return func(yield func(a2a.Event, error) bool) {
		res, err := client.SendMessage(ctx, req)
		if err != nil {
			yield(nil, err)
			return
		}
		if !yield(res, nil) {
			return
		}
		if _, isTask := res.(*a2a.Task); isTask {
			for ev, err := range r.poll(ctx) {
				if !yield(ev, err) {
					return
				}
			}
		}
	}
}

// follow follows a task sent before: its stream again when the agent
// streams (falling back to polling when it cannot resubscribe), else
// polling. Attempts that fail wait longer each time, up to maxBackoff.
func (r *run) follow(ctx context.Context) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		client, card := r.p.current()
		if card.Capabilities.Streaming && !r.p.cfg.Poll {
			got := false
			for ev, err := range client.SubscribeToTask(ctx, &a2a.SubscribeToTaskRequest{ID: a2a.TaskID(r.remoteID)}) {
				if err != nil {
					break
				}
				got = true
				if !yield(ev, nil) {
					return
				}
			}
			if got && (r.state.Terminal() || r.state == a2a.TaskStateInputRequired) {
				return
			}
		}
		for ev, err := range r.poll(ctx) {
			if !yield(ev, err) {
				return
			}
		}
	}
}

// poll yields the task as GetTask returns it, every PollInterval (longer
// after a failure), until it ends or waits for input.
func (r *run) poll(ctx context.Context) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		wait := r.p.cfg.PollInterval
		for {
			client, _ := r.p.current()
			t, err := client.GetTask(ctx, &a2a.GetTaskRequest{ID: a2a.TaskID(r.remoteID)})
			switch {
			case err != nil && ctx.Err() != nil:
				return
			case errors.Is(err, a2a.ErrTaskNotFound):
				yield(nil, err)
				return
			case err != nil:
				r.p.log.Warn("a2a task not polled; trying again", "task", r.id(), "remote", r.remoteID, "err", err, "in", wait)
				wait = min(wait*2, maxBackoff)
			default:
				wait = r.p.cfg.PollInterval
				if !yield(t, nil) {
					return
				}
				if s := t.Status.State; s.Terminal() || s == a2a.TaskStateInputRequired || s == a2a.TaskStateAuthRequired {
					return
				}
			}
			tm := r.p.clk.NewTimer(wait)
			select {
			case <-ctx.Done():
				tm.Stop()
				return
			case <-tm.C():
			}
		}
	}
}
