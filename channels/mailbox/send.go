package mailbox

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// This file is the send path: Send (what an answer of the agent loop
// becomes), Post (one message, under the loop rules and the guard rails,
// with the records of the tasks and requests it sends), PostTo (one send
// to many agents), and the recent messages by which an answer is
// recognised as a reply.

// Send delivers an outbound message of channel "mailbox"; its chat id is
// the target agent. What it becomes is decided by meta.Answers, as the
// agent loop decides what to answer: when its metadata carries the Meta of
// a message this agent received from that agent (the loop copies the
// inbound metadata into its answer), it answers that message: the answer
// to a task becomes the task's final task_update (completed, or the state
// set with meta.WithReply; failed with its reason when out.Failure says
// the work failed), any other answer a message with reply_to set.
// An answer to a subtask's update routed back to the conversation of a
// task this agent works on is an update of that task (tasks.go).
// Otherwise it is a new message (with a fresh trace), or a forward when
// the Meta belongs to a message from another agent.
func (c *Channel) Send(ctx context.Context, out bus.OutboundMessage) error {
	if err := envelope.ValidateAgentID(out.ChatID); err != nil {
		return fmt.Errorf("mailbox send: chat id must be the target agent id: %w", err)
	}
	var parts []envelope.Part
	for _, p := range out.Media {
		parts = append(parts, envelope.FilePart(p))
	}
	kind, mt, answers := meta.Answers(out.Metadata, out.ChatID)
	if answers && kind == meta.KindTask && mt.Task != nil {
		reply := replyOf(out)
		state := reply.State
		if state == "" {
			state = envelope.StateCompleted
		}
		_, err := c.FinishTask(ctx, mt.Task.ID, state, out.Content, reply.Reason, parts)
		if errors.Is(err, ErrTaskNotActive) && c.Canceled(mt.Task.ID) {
			// Its delegator canceled it while the turn ran: the answer has
			// nowhere to go, and nothing is lost by dropping it.
			c.Logger().Info("answer to a canceled task dropped", "id", mt.MessageID, "thread", mt.ThreadID, "task", mt.Task.ID)
			return nil
		}
		return err
	}
	if done, err := c.answerInTask(ctx, out, mt, parts); done {
		return err
	}
	req := route.Request{To: out.ChatID, Text: out.Content, Parts: parts, ReplyTo: out.ReplyTo}
	if mt != nil && kind != meta.KindChat { // an update routed to a user's chat is no parent
		req.Parent = mt
		if answers && req.ReplyTo == "" {
			req.ReplyTo = mt.MessageID
		}
	}
	_, err := c.Post(ctx, req)
	if u := (*undelivered)(nil); errors.As(err, &u) && c.owe(ctx, u, nil) {
		return nil // kept and sent again; the message it answers waits for it (ackWhenDone)
	}
	return err
}

// replyOf returns how out answers a task: the reply options of its
// metadata (meta.WithReply), unless out.Failure says that the agent's
// work failed: then the task fails with that reason.
func replyOf(out bus.OutboundMessage) meta.Reply {
	if out.Failure != "" {
		return meta.Reply{State: envelope.StateFailed, Reason: out.Failure}
	}
	r, _ := meta.ReplyOf(out.Metadata)
	return r
}

// Post sends one message from this agent. A reply (a task_update, or an
// answer to a message this agent received, sent to its sender) keeps the
// thread's trace and is never refused as a loop, but counts toward the
// thread's hop limit. Anything else appends this agent to the trace and
// spends one hop of ttl, and is refused with route.ErrLoop or
// route.ErrTTLExhausted. A task's callback is recorded before delivery so
// that its updates can be routed back, also after a restart; so is a
// request (ExpectsReply), so that a reply that does not come in time is
// reported. A reply archives the request it answers (see Archive).
// The guard rails apply to a new send or forward (guard.go): one over a
// rate limit, or to a recipient whose circuit breaker is open, fails with
// a *route.LimitError that says how long to wait.
func (c *Channel) Post(ctx context.Context, req route.Request) (_ *envelope.Message, err error) {
	backend, sent, owed, err := c.state()
	if err != nil {
		return nil, err
	}
	if req.Parts, err = c.attach(ctx, req.Parts); err != nil {
		return nil, err
	}
	orig := route.Original(req, c.received.get, c.cfg.DefaultTTL)
	msg, err := route.Compose(c.cfg.AgentID, req, route.ComposeOptions{
		DefaultTTL: c.cfg.DefaultTTL, MaxThreadHops: c.cfg.MaxThreadHops, Now: c.clk.Now(),
		Original: orig, ReplyTimeout: seconds(c.cfg.ReplyTimeout)})
	if err != nil {
		return nil, err
	}
	ctx, end := c.sendSpan(ctx, msg)
	defer func() { end(err) }()
	if orig == nil { // a reply is bounded by the thread's hop cap instead
		if err := c.allowSend(msg); err != nil {
			return nil, err
		}
	}
	if err := c.sign(msg); err != nil {
		return nil, err
	}
	recorded := false
	if msg.Type == envelope.TypeTask {
		if err := sent.Add(ctx, delegation(msg, req, c.cfg.Escalation.Enabled())); err != nil {
			return nil, err
		}
		recorded = true
	}
	undo, err := c.awaitReply(ctx, owed, msg, req.Callback)
	if err != nil {
		if recorded {
			sent.Remove(context.WithoutCancel(ctx), msg.Task.ID)
		}
		return nil, err
	}
	if err := backend.Deliver(ctx, msg); err != nil {
		if recorded {
			sent.Remove(context.WithoutCancel(ctx), msg.Task.ID)
		}
		undo()
		if ctx.Err() == nil {
			c.deliveryFailed(ctx, msg.To, err)
		}
		return nil, &undelivered{msg: msg, err: fmt.Errorf("send to %q: %w", msg.To, err)}
	}
	if m := c.meterOf(); m != nil {
		m.Sent(msg)
	}
	if recorded {
		c.subtaskSent(msg, meta.TreeOf(req.Tree, req.Parent))
	}
	c.posted.remember(msg)
	c.releaseAnswered(ctx, owed, msg)
	return msg, nil
}

// PostTo sends req (whose To is ignored) to every agent target names
// (see route.ParseTarget and route.Resolve): all, a capability or role (every holder,
// or with any: the least loaded online one), a pattern, or one agent.
// Each recipient gets its own copy under the loop rules of Post; a
// recipient they refuse is skipped and reported, and PostTo fails only
// when nobody could be sent to. A task with a fixed TaskID can go to one
// agent only.
func (c *Channel) PostTo(ctx context.Context, target string, req route.Request) (route.Fanout, error) {
	t, err := route.ParseTarget(target)
	if err != nil {
		return route.Fanout{}, err
	}
	be := c.Backend()
	if be == nil {
		return route.Fanout{}, ErrNotRunning
	}
	opts := route.ResolveOptions{Now: c.clk.Now(), OfflineAfter: seconds(c.cfg.OfflineAfter), MaxFanout: c.cfg.MaxFanout,
		Work: req.Type == envelope.TypeTask}
	if be.Has(store.CanFindInbox) { // a bare name with an inbox is that agent, as on the command line
		opts.HasInbox = func(agent string) bool { ok, _ := be.HasInbox(agent); return ok }
	}
	to, err := route.Resolve(ctx, be, c.cfg.AgentID, t, opts)
	if err != nil {
		return route.Fanout{}, err
	}
	if len(to) > 1 && req.Type == envelope.TypeTask && req.TaskID != "" {
		return route.Fanout{}, fmt.Errorf("send task %s to %s: a task id names one task, for one agent; leave it out so that each of the %d agents gets its own",
			req.TaskID, t, len(to))
	}
	if req.Type == envelope.TypeTask && req.Via == "" && (t.Kind == route.TargetAny || t.Kind == route.TargetCap && len(to) == 1) {
		req.Via = t.String() // one worker picked from a group: another may take over (delegated.go)
	}
	// The first copy names the thread the others share; then the rest go
	// out together, FanoutParallel at a time.
	var out route.Fanout
	first := 0
	for ; first < len(to) && len(out.Sent) == 0; first++ {
		if err := c.postOne(ctx, req, to[first], "", &out); err != nil {
			return out, err
		}
	}
	rest := to[first:]
	thread := req.ThreadID
	if thread == "" && len(out.Sent) > 0 {
		thread = out.Sent[0].ThreadID
	}
	results := make([]route.Fanout, len(rest))
	errs := route.Each(ctx, len(rest), route.FanoutParallel, func(ctx context.Context, i int) error {
		return c.postOne(ctx, req, rest[i], thread, &results[i])
	})
	for i, r := range results { // in recipient order
		out.Sent, out.Skipped = append(out.Sent, r.Sent...), append(out.Skipped, r.Skipped...)
		if errs[i] != nil {
			return out, errs[i]
		}
	}
	if len(out.Sent) == 0 {
		return out, fmt.Errorf("send to %s: every recipient refused: %w", t, out.Skipped[0].Err)
	}
	return out, nil
}

// postOne posts req to rcpt in thread (req's own when empty) and adds the
// outcome to out: sent, or skipped by the loop rules, a rate limit or an
// open circuit breaker. Any other failure
// is returned.
func (c *Channel) postOne(ctx context.Context, req route.Request, rcpt, thread string, out *route.Fanout) error {
	r := req
	r.To = rcpt
	if r.ThreadID == "" {
		r.ThreadID = thread
	}
	msg, err := c.Post(ctx, r)
	switch {
	case err == nil:
		out.Sent = append(out.Sent, msg)
	case errors.Is(err, route.ErrLoop) || errors.Is(err, route.ErrTTLExhausted) ||
		errors.Is(err, route.ErrRateLimited) || errors.Is(err, route.ErrBreakerOpen):
		out.Skipped = append(out.Skipped, route.Skipped{To: rcpt, Err: err})
	default:
		return err
	}
	return nil
}

// recentMessages remembers the last messages this agent received, so that
// an answer can be recognised as a reply (and keep its thread and trace)
// even when the caller did not carry the inbound metadata along. It holds
// at most size entries, forgetting the oldest first.
type recentMessages struct {
	mu    sync.Mutex
	size  int
	byID  map[string]meta.Meta
	order []string // ring of ids, oldest at next
	next  int
}

// newRecentMessages returns an empty memory of size entries. Its map grows
// with the messages: an agent that starts does not pay for a full one.
func newRecentMessages(size int) *recentMessages {
	return &recentMessages{size: size, byID: map[string]meta.Meta{}}
}

func (r *recentMessages) add(m meta.Meta) {
	m.Parts = nil // replies need the routing fields only; parts can be up to maxMessageBytes each
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[m.MessageID]; ok {
		r.byID[m.MessageID] = m
		return
	}
	if len(r.order) < r.size {
		r.order = append(r.order, m.MessageID)
	} else {
		delete(r.byID, r.order[r.next])
		r.order[r.next] = m.MessageID
		r.next = (r.next + 1) % r.size
	}
	r.byID[m.MessageID] = m
}

func (r *recentMessages) get(id string) (meta.Meta, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.byID[id]
	return m, ok
}
