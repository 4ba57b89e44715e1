package remote

import (
	"context"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
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
