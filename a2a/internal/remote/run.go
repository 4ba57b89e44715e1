package remote

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/tracing"
)

// finishTimeout bounds the final update of a task, which goes out even
// while the participant stops.
const finishTimeout = 10 * time.Second

// maxBackoff bounds the wait between attempts to reach an agent that
// does not answer.
const maxBackoff = 30 * time.Second

// run is one mailbox task sent to the A2A agent, from its sending (or its
// resumption after a restart) to its end.
type run struct {
	p    *Participant
	in   bus.InboundMessage
	task meta.Meta

	answers chan reply

	mu       sync.Mutex
	stop     context.CancelFunc
	canceled string // why the delegator canceled the task ("" while it did not)

	remoteID, contextID string
	state               a2a.TaskState
	status              string // the text of the remote task's status message
	artifacts           []*a2a.Artifact
	message             *a2a.Message // a reply without a task
	working             bool         // the delegator was told the task is worked on
	progress            string       // the last progress text told
}

// reply is the delegator's answer to the question a run asked.
type reply struct {
	parts []envelope.Part
	done  func()
}

func newRun(p *Participant, in bus.InboundMessage, mt meta.Meta) *run {
	return &run{p: p, in: in, task: mt, answers: make(chan reply, 1)}
}

// canceled stops the run: the delegator canceled the task.
func (r *run) cancel(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.canceled == "" {
		r.canceled = "canceled by " + r.task.From
		if reason != "" {
			r.canceled += ": " + reason
		}
	}
	if r.stop != nil {
		r.stop()
	}
}

// answer hands the run the delegator's answer to its question.
func (r *run) answer(m bus.InboundMessage, mt meta.Meta) {
	select {
	case r.answers <- reply{parts: mt.Parts, done: m.Done}:
	default:
		m.Done() // an answer is being sent already
	}
}

// id is the mailbox task's id.
func (r *run) id() string { return r.task.Task.ID }

// do runs the task to its end, or until the participant stops (the task
// then stays claimed, and the next start resumes it).
func (r *run) do(parent context.Context) {
	ctx, stop := context.WithCancel(parent)
	defer stop()
	if d := r.task.Task.Deadline; d != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Time)
		defer cancel()
	}
	r.mu.Lock()
	r.stop = stop
	gone := r.canceled != ""
	r.mu.Unlock()
	if gone {
		stop()
	}
	ctx = tracing.Extract(ctx, r.in.TraceContext)
	ctx, span := tracing.Tracer().Start(ctx, "a2a send_task "+r.p.cfg.Name, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("a2a.url", r.p.cfg.URL), attribute.String("mailbox.task_id", r.id())))
	defer span.End()

	events := r.start(ctx)
	for {
		r.consume(ctx, events)
		switch {
		case r.state.Terminal() || r.message != nil:
			r.finish()
			return
		case r.state == a2a.TaskStateAuthRequired:
			r.state = a2a.TaskStateFailed
			r.status = "the agent wants authentication: " + r.status
			r.finish()
			return
		case r.stopped(parent, ctx):
			return
		case r.state == a2a.TaskStateInputRequired:
			if events = r.ask(ctx); events == nil {
				r.stopped(parent, ctx)
				return
			}
		default: // the stream broke off: follow the task again
			events = r.follow(ctx)
		}
	}
}

// stopped reports whether the run must end without finishing the task:
// the participant stops (the task is resumed at the next start), or the
// delegator canceled it (the agent is told; the mailbox ended the task
// already), or its deadline passed (the mailbox fails it).
func (r *run) stopped(parent, ctx context.Context) bool {
	if ctx.Err() == nil {
		return false
	}
	r.mu.Lock()
	why := r.canceled
	r.mu.Unlock()
	switch {
	case why != "":
		r.cancelRemote(why)
	case parent.Err() == nil: // the deadline
		r.cancelRemote("deadline passed")
	}
	return true
}

// start sends the task to the agent, or, when it was sent before the
// participant last stopped, follows the task it became.
func (r *run) start(ctx context.Context) iter.Seq2[a2a.Event, error] {
	if s, ok := r.p.open.get(r.id()); ok && s.RemoteID != "" {
		r.remoteID, r.contextID = s.RemoteID, s.ContextID
		r.p.log.Info("a2a task resumed", "task", r.id(), "remote", r.remoteID)
		if s.Question != "" {
			r.p.mu.Lock()
			r.p.asked[s.Question] = r
			r.p.mu.Unlock()
		}
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

// ask asks the delegator the question of a remote task that waits for
// input, waits for the answer, and sends it to the agent. It returns nil
// when the run stops first.
func (r *run) ask(ctx context.Context) iter.Seq2[a2a.Event, error] {
	s, _ := r.p.open.get(r.id())
	if s.Question == "" {
		question := r.status
		if question == "" {
			question = "the agent needs more input"
		}
		msg, err := r.p.ch.Post(ctx, route.Request{To: r.task.From, Type: envelope.TypeMessage, TaskID: r.id(),
			ThreadID: r.task.ThreadID, ExpectsReply: true, Text: r.p.cfg.Name + " asks: " + question})
		if err != nil {
			r.state, r.status = a2a.TaskStateFailed, "the agent wants input, and the question could not be asked: "+err.Error()
			return emptyEvents
		}
		s.Question = msg.ID
		if err := r.p.open.set(ctx, r.id(), s); err != nil {
			r.p.log.Warn("a2a question not recorded", "task", r.id(), "err", err)
		}
		r.p.mu.Lock()
		r.p.asked[msg.ID] = r
		r.p.mu.Unlock()
	}
	select {
	case <-ctx.Done():
		return nil
	case a := <-r.answers:
		follow := a2a.NewMessage(a2a.MessageRoleUser, convert.ToA2AParts(a.parts)...)
		follow.TaskID, follow.ContextID = a2a.TaskID(r.remoteID), r.contextID
		s.Question = ""
		if err := r.p.open.set(ctx, r.id(), s); err != nil {
			r.p.log.Warn("a2a answer not recorded", "task", r.id(), "err", err)
		}
		a.done()
		r.state = a2a.TaskStateWorking
		return r.send(ctx, follow)
	}
}

// emptyEvents is a sequence of no events.
func emptyEvents(func(a2a.Event, error) bool) {}

// finish ends the mailbox task as the remote task ended: completed with
// the text of its artifacts (or its reply, or its status message) and
// their other parts; failed, rejected or wanting authentication as
// failed, with the agent's words as the reason; canceled.
func (r *run) finish() {
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	state, reason, text := envelope.StateCompleted, "", ""
	var parts []envelope.Part
	if r.message != nil {
		text = convert.MessageText(r.message)
		parts = nonText(convert.FromA2AParts(r.message.Parts))
	} else {
		var texts []string
		for _, a := range r.artifacts {
			if t := convert.Text(a.Parts); t != "" {
				texts = append(texts, t)
			}
			parts = append(parts, nonText(convert.FromA2AParts(a.Parts))...)
		}
		text = strings.Join(texts, "\n")
		if text == "" {
			text = r.status
		}
		if st, ok := convert.ToMailbox(r.state); ok && st != envelope.StateCompleted {
			state, text, parts = st, "", nil
			reason = convert.Short(r.state) + " by " + r.p.cfg.Name
			if r.status != "" {
				reason += ": " + r.status
			}
		}
	}
	if _, err := r.p.ch.FinishTask(ctx, r.id(), state, text, reason, parts); err != nil {
		r.p.log.Warn("a2a task not ended in the mailbox", "task", r.id(), "state", state, "err", err)
	}
	if err := r.p.open.forget(ctx, r.id()); err != nil {
		r.p.log.Warn("ended a2a task not forgotten", "task", r.id(), "err", err)
	}
}

// cancelRemote tells the agent the task is canceled, and forgets it.
func (r *run) cancelRemote(why string) {
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	if r.remoteID != "" {
		client, _ := r.p.current()
		if _, err := client.CancelTask(ctx, &a2a.CancelTaskRequest{ID: a2a.TaskID(r.remoteID)}); err != nil {
			r.p.log.Info("a2a task not canceled at the agent", "task", r.id(), "remote", r.remoteID, "err", err)
		}
	}
	if err := r.p.open.forget(ctx, r.id()); err != nil {
		r.p.log.Warn("canceled a2a task not forgotten", "task", r.id(), "err", err)
	}
	r.p.log.Info("a2a task stopped", "task", r.id(), "why", why)
}

// nonText returns the parts that are not text.
func nonText(parts []envelope.Part) []envelope.Part {
	var out []envelope.Part
	for _, p := range parts {
		if p.Type != envelope.PartText {
			out = append(out, p)
		}
	}
	return out
}
