package server

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/tracing"
)

// executor is the SDK's agent executor for one fronted agent. An
// execution that creates a task sends the agent a mailbox task for it;
// every execution then turns the task's updates (its feed) into A2A
// events until the task ends or waits for input. An execution that
// starts with the task's first message again resumes it (after a restart,
// or when an update arrives for a task waiting for input); one that starts
// with a new message of the client answers what the task waits for.
type executor struct {
	s     *Server
	agent string
}

var _ a2asrv.AgentExecutor = (*executor)(nil)

// Execute implements a2asrv.AgentExecutor.
func (e *executor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		f := e.s.feeds.attach(ec.TaskID)
		var back []update
		defer func() { e.s.feeds.detach(ec.TaskID, back) }()
		last := a2a.TaskStateSubmitted
		if ec.StoredTask == nil {
			if !e.create(ctx, ec, yield) {
				return
			}
		} else {
			last = ec.StoredTask.Status.State
			ok, final := e.continued(ctx, ec, yield)
			if !ok || final {
				return
			}
		}
		back = e.follow(ctx, ec, f, last, yield)
	}
}

// create yields the new task, waits until it is stored and sends the
// mailbox task. It reports whether the execution goes on.
func (e *executor) create(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) bool {
	if len(convert.FromA2AParts(ec.Message.Parts)) == 0 {
		yield(nil, fmt.Errorf("the message has no text, data, file or raw part: %w", a2a.ErrInvalidParams))
		return false
	}
	created := e.s.tasks.awaitCreate(ec.TaskID)
	if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
		return false
	}
	select {
	case <-created:
	case <-ctx.Done():
		return false
	}
	return e.send(ctx, ec, yield)
}

// continued handles an execution of a stored task: one that resumes it
// (the task's first message again) sends the mailbox task if it was not
// sent yet; a new message of the client answers what the task waits for,
// or is passed on to the agent. final reports that an event ended the
// execution.
func (e *executor) continued(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) (ok, final bool) {
	r, found := e.s.tasks.get(ec.TaskID)
	if !found {
		yield(nil, a2a.ErrTaskNotFound)
		return false, true
	}
	if r.Mailbox.MessageID == "" {
		return e.send(ctx, ec, yield), false
	}
	if ec.Message == nil || ec.Message.ID == r.Mailbox.Original {
		return true, false
	}
	return e.answer(ctx, ec, r, yield)
}

// send sends the mailbox task of a stored task to the agent, in the trace
// the client's request carries, as a new task tree or one level below the
// tree a switchboard client's hop names. A send the mailbox refuses ends
// the task: rejected by a guard rail (a rate limit, a loop, a cycle),
// failed otherwise.
func (e *executor) send(ctx context.Context, ec *a2asrv.ExecutorContext, yield func(a2a.Event, error) bool) bool {
	r, _ := e.s.tasks.get(ec.TaskID)
	first := ec.Message
	if r.Task != nil && len(r.Task.History) > 0 {
		first = r.Task.History[0]
	}
	ctx = tracing.Extract(ctx, traceCarrier(ec, first))
	ctx, span := tracing.Tracer().Start(ctx, "a2a send_message "+e.agent,
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("a2a.task_id", string(ec.TaskID)),
			attribute.String("gen_ai.agent.name", e.agent)))
	req := e.s.taskRequest(e.agent, ec, first)
	msg, err := e.s.ch.Post(ctx, req)
	tracing.End(span, err)
	if err != nil {
		state := a2a.TaskStateFailed
		if _, limited := route.RetryAfter(err); limited || errors.Is(err, route.ErrLoop) || errors.Is(err, route.ErrTTLExhausted) {
			state = a2a.TaskStateRejected
		}
		e.s.log.Warn("a2a task not sent to its agent", "task", ec.TaskID, "agent", e.agent, "err", err)
		yield(a2a.NewStatusUpdateEvent(ec, state, convert.AgentMessage(ec, "not sent to "+e.agent+": "+err.Error())), nil)
		return false
	}
	if err := e.s.tasks.setSide(ctx, ec.TaskID, func(s *side) { s.MessageID = msg.ID }); err != nil {
		e.s.log.Warn("a2a task not marked sent; it is sent again after a restart", "task", ec.TaskID, "err", err)
	}
	return true
}

// answer handles a new message of the client on a stored task: the
// answer to the approval or the question the task waits for, or a message
// for the agent about the task.
func (e *executor) answer(ctx context.Context, ec *a2asrv.ExecutorContext, r record, yield func(a2a.Event, error) bool) (ok, final bool) {
	text := convert.MessageText(ec.Message)
	w := r.Mailbox.Waiting
	if w != nil && w.Kind == waitApproval {
		ev, final := e.s.decide(ctx, ec, r, text)
		return yield(ev, nil), final
	}
	req := route.Request{To: e.agent, Type: envelope.TypeMessage, TaskID: r.Mailbox.TaskID, Text: text,
		Parts: dataParts(ec.Message.Parts), ReplyTo: r.Mailbox.MessageID}
	if w != nil && w.Kind == waitQuestion {
		req.To, req.ReplyTo = w.From, w.ID
	}
	if _, err := e.s.ch.Post(ctx, req); err != nil {
		yield(nil, fmt.Errorf("pass the message on to %s: %v: %w", req.To, err, a2a.ErrInternalError))
		return false, true
	}
	if err := e.s.tasks.setSide(ctx, ec.TaskID, func(s *side) { s.Waiting = nil }); err != nil {
		e.s.log.Warn("a2a task's wait not cleared", "task", ec.TaskID, "err", err)
	}
	return yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil), false
}

// follow turns the task's updates into events until the task ends, waits
// for input, or ctx ends. It returns the updates it took and did not
// yield, for the next execution.
func (e *executor) follow(ctx context.Context, ec *a2asrv.ExecutorContext, f *feed, last a2a.TaskState, yield func(a2a.Event, error) bool) []update {
	for {
		u, ok := e.s.feeds.next(ctx, f)
		if !ok {
			return nil
		}
		events := e.s.translate(ctx, ec, u, last)
		if len(events) == 0 {
			if u.done != nil {
				u.done()
			}
			continue
		}
		for i, ev := range events {
			if i == len(events)-1 && u.done != nil {
				e.s.acks.on(ev, u.done)
			}
			if !yield(ev, nil) {
				e.s.acks.forget(ev)
				if i == 0 {
					return []update{u}
				}
				return nil // what it said is stored in part; the rest is lost with the execution
			}
		}
		if st, ok := events[len(events)-1].(*a2a.TaskStatusUpdateEvent); ok {
			last = st.Status.State
			if last.Terminal() || last == a2a.TaskStateInputRequired {
				return nil
			}
		}
	}
}

// Cancel implements a2asrv.AgentExecutor: the agent is told the task is
// canceled (it drops it, and denies an approval it waits for), and the
// task ends canceled.
func (e *executor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		reason := "canceled by the A2A client"
		if r, ok := e.s.tasks.get(ec.TaskID); ok && r.Mailbox.MessageID != "" {
			_, err := e.s.ch.Post(ctx, route.Request{To: e.agent, Type: envelope.TypeTaskUpdate, TaskID: r.Mailbox.TaskID,
				TaskState: envelope.StateCanceled, Reason: reason, ReplyTo: r.Mailbox.MessageID})
			if err != nil {
				yield(nil, fmt.Errorf("tell %s the task is canceled: %v: %w", e.agent, err, a2a.ErrTaskNotCancelable))
				return
			}
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, convert.AgentMessage(ec, reason)), nil)
	}
}

// traceCarrier is the W3C trace context of a request: the traceparent
// header, else the metadata of the request or of its message.
func traceCarrier(ec *a2asrv.ExecutorContext, msg *a2a.Message) map[string]string {
	if v, ok := ec.ServiceParams.Get(tracing.KeyTraceparent); ok && len(v) > 0 && v[0] != "" {
		c := map[string]string{tracing.KeyTraceparent: v[0]}
		if s, ok := ec.ServiceParams.Get(tracing.KeyTracestate); ok && len(s) > 0 {
			c[tracing.KeyTracestate] = s[0]
		}
		return c
	}
	if c := convert.TraceOf(ec.Metadata); c != nil {
		return c
	}
	if msg != nil {
		return convert.TraceOf(msg.Metadata)
	}
	return nil
}

// dataParts are the parts of an A2A message other than its text (which
// the mailbox request carries as its text).
func dataParts(parts []*a2a.Part) []envelope.Part {
	var out []envelope.Part
	for _, p := range convert.FromA2AParts(parts) {
		if p.Type != envelope.PartText {
			out = append(out, p)
		}
	}
	return out
}

// isMailboxTask reports whether mt is about a task the gateway sent, and
// returns its A2A task id.
func a2aTaskOf(mt *meta.Meta) (a2a.TaskID, bool) {
	id, ok := strings.CutPrefix(mt.TaskOf(), MailboxPrefix)
	return a2a.TaskID(id), ok && validID(a2a.TaskID(id))
}
