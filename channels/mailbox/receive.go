package mailbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/backoff"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/tracing"
)

// This file is the whole receive path, in the order a delivery takes it.
// receiveLoop takes each delivery from the inbox and handle runs it
// through one pipeline:
//
//	admit     senderRefusal (signing.go): signed by the key pinned for
//	          its sender, or unsigned from one allowed to (marked
//	          unverified); then refusal: allowFrom (not for the updates
//	          of a task we delegated), the loop rule (route.IsLoop), the
//	          sender's rate (guard.go); a refused message is set aside
//	          with the reason (a refused task is answered rejected first,
//	          unless its sender is in doubt); a reply that carries a
//	          stalemate on is set aside and its task failed (stalemate.go)
//	classify  by type, one handler per kind, each deciding what the agent
//	          is handed and whether the delivery is held:
//	            task         onTask     accept or reject (the task's
//	                                    life after that: tasks.go)
//	            task_update  onUpdate   a cancel, or an update of a task
//	                                    we delegated (delegated.go); one
//	                                    of a task we never sent to its
//	                                    sender is set aside
//	            message      onMessage  plain, request (replies.go), reply
//	bus       the verdict's InboundMessage is published (routed to the
//	          conversation a delegated task began in, for its updates),
//	          framed for the agent (frame.go: its kind, its note)
//	ack       finish: the delivery is acknowledged when the agent is done
//	          with it (bus.InboundMessage.Done, after its turn and answer),
//	          or when it ends if it is held: a task (FinishTask), a
//	          request when it is answered (Post); at once when nothing
//	          goes to the agent

// verdict is what a handler decides about one delivery.
type verdict struct {
	// publish hands in to the agent.
	publish bool
	in      bus.InboundMessage
	// hold keeps the delivery claimed (not acknowledged) after publishing.
	hold bool
	// undo reverses the handler's bookkeeping when publishing fails.
	undo func()
	// sweep is the task whose messages are archived once acknowledged.
	sweep string
	// setAside, when not empty, is why the delivery is set aside
	// (store.Inbox.Quarantine) rather than handed over.
	setAside string
}

// receiveRetry spaces the retries of a failing store: 100 ms, doubling up
// to 5 s, jittered.
var receiveRetry = backoff.Policy{Initial: 100 * time.Millisecond, Max: 5 * time.Second}

// receiveLoop hands every delivery to handle until intake (a child of
// ctx) ends; the delivery in hand is handled under ctx. A store error is
// logged and retried after a pause; it never ends the loop.
func (c *Channel) receiveLoop(ctx, intake context.Context) {
	pauses := receiveRetry.Start()
	for {
		if ctx.Err() != nil {
			// The channel stops. Cancelling ctx closes its Done before it
			// cancels intake: Next(intake) could still claim a message
			// that nothing would be handed.
			return
		}
		d, err := c.inbox.Next(intake)
		if err != nil {
			if intake.Err() != nil || errors.Is(err, store.ErrClosed) {
				return
			}
			pause := pauses.Next()
			c.Logger().Error("mailbox receive failed; retrying", "err", err, "pause", pause)
			if backoff.Sleep(intake, c.clk, pause) != nil {
				return
			}
			continue
		}
		pauses.Reset()
		if err := c.handle(ctx, d); err != nil && ctx.Err() == nil {
			c.Logger().Error("mailbox message not handled; it stays claimed and comes back on restart",
				append(meta.MessageLogAttrs(d.Message), "err", err)...)
		}
	}
}

// handle runs one delivery through the receive pipeline (see the top of
// this file).
func (c *Channel) handle(ctx context.Context, d *store.Delivery) (err error) {
	m := d.Message
	ctx, end := c.receiveSpan(ctx, m, d.Redelivered)
	defer func() { end(err) }()
	mt := meta.FromMessage(m, d.Redelivered)

	// admit: who sent it first (signing.go), then the rules that trust it
	if reason, err := c.senderRefusal(ctx, m, &mt); err != nil || reason != "" {
		if err != nil {
			return err
		}
		return c.inbox.Quarantine(ctx, d, reason)
	}
	if reason := c.refusal(m); reason != "" {
		c.Logger().Warn("mailbox message refused", append(meta.MessageLogAttrs(m), "reason", reason)...)
		if m.Type == envelope.TypeTask && m.Task != nil {
			answer := reason // a loop or a rate limit: the delegator learns why
			if strings.HasPrefix(reason, "unauthorized") {
				answer = "unauthorized" // without naming the allowFrom list
			}
			c.answerTask(ctx, mt, envelope.StateRejected, answer)
		}
		return c.inbox.Quarantine(ctx, d, reason)
	}
	if reason, end := c.stalemateOf(ctx, m, &mt); reason != "" {
		defer end() // stalemate.go: its task fails once m is set aside
		return c.inbox.Quarantine(ctx, d, reason)
	}
	c.received.add(mt)
	in := c.toInbound(m, mt)
	in.TraceContext = tracing.Inject(ctx)

	// classify: one handler per kind
	var v verdict
	switch m.Type {
	case envelope.TypeTask:
		v, err = c.onTask(ctx, d, mt, in)
	case envelope.TypeTaskUpdate:
		v, err = c.onUpdate(ctx, d, mt, in)
	default:
		v, err = c.onMessage(ctx, d, mt, in)
	}
	if err != nil {
		return err
	}
	if v.setAside != "" {
		c.Logger().Warn("mailbox message set aside", append(meta.MessageLogAttrs(m), "reason", v.setAside)...)
		return c.inbox.Quarantine(ctx, d, v.setAside)
	}

	// bus
	if v.publish {
		recorded := make(chan struct{}) // the ack's audit entry comes after "delivered"
		defer close(recorded)
		if !v.hold {
			v.in.Ack = c.ackWhenDone(d, v.sweep, recorded)
		}
		if err := c.publish(ctx, v.in); err != nil {
			if v.undo != nil {
				v.undo()
			}
			return err
		}
		if meter := c.meterOf(); meter != nil {
			meter.Delivered(m, d.Redelivered, c.clk.Now())
		}
		c.recordMessage(ctx, store.EventDelivered, m, "")
		return nil // acknowledged when the agent is done with it, or when it ends (held)
	}

	if v.hold {
		return nil // answered, its answer not sent yet: acknowledged when it is (unsent.go)
	}
	// ack: nothing for the agent (a duplicate, a rejected task)
	return c.finish(ctx, d, v.sweep)
}

// refusal returns why m is not admitted ("" when it is): a sender outside
// allowFrom, a message (not a reply) that already passed through this
// agent, or a sender over its rate (channels.mailbox.limits.perSender).
// An update of a task this agent delegated to m.From is an answer, not
// news from a new sender: allowFrom does not apply to it (answersOurTask).
func (c *Channel) refusal(m *envelope.Message) string {
	if !c.IsAllowed(m.From) && !c.answersOurTask(m) {
		return "unauthorized: sender " + m.From + " not in allowFrom"
	}
	if route.IsLoop(m, c.cfg.AgentID) {
		return route.LoopReason(c.cfg.AgentID, m.Trace)
	}
	return c.receiveRefusal(m)
}

// answersOurTask reports whether m is a task_update of a task this agent
// delegated to m.From, as its record says (the record that routes the
// update to the conversation the task began in): the worker answers the
// task it was given, whoever allowFrom lets send new work.
func (c *Channel) answersOurTask(m *envelope.Message) bool {
	if m.Type != envelope.TypeTaskUpdate || m.Task == nil {
		return false
	}
	_, ok := c.sent.Lookup(m.Task.ID, m.From)
	return ok
}

// onTask is the handler of a task request: sender allowed (admitted
// before), its task tree neither a cycle nor too deep (meta.CheckTaskPath),
// free capacity, deadline not passed, and the agent's judgement.
// It answers accepted or rejected with a reason; an accepted task goes to
// the agent and stays claimed until it ends.
func (c *Channel) onTask(ctx context.Context, d *store.Delivery, mt meta.Meta, in bus.InboundMessage) (verdict, error) {
	task := d.Message.Task
	if c.active.Has(task.ID) { // a duplicate of a task being worked on: nothing new to do
		return verdict{}, nil
	}
	if d.Redelivered {
		// Answered before a restart: its final update is stored, or
		// waits to go out (unsent.go). Not worked on again.
		if c.holdForUnsent(d.Message.ID, func() { c.finishLate(d, task.ID) }) {
			return verdict{hold: true}, nil
		}
		if c.storedFinal(ctx, task.ID, mt.From) {
			return verdict{sweep: task.ID}, nil
		}
	}
	reason := meta.CheckTaskPath(c.cfg.AgentID, d.Message, c.cfg.Limits.MaxTaskDepth)
	if reason == "" {
		reason = c.taskRefusal(ctx, task, in)
	}
	if reason != "" {
		c.Logger().Info("task rejected", "task", task.ID, "from", mt.From, "reason", reason)
		c.answerTask(ctx, mt, envelope.StateRejected, reason)
		return verdict{sweep: task.ID}, nil
	}
	deadline := c.clk.Now().Add(seconds(c.cfg.TaskTimeout))
	if task.Deadline != nil && task.Deadline.Before(deadline) {
		deadline = task.Deadline.Time
	}
	c.active.Add(task.ID, mt, d, deadline, c.expireTask)
	c.cardChanged(ctx)
	c.answerTask(ctx, mt, envelope.StateAccepted, "")
	return verdict{publish: true, in: in, hold: true, undo: func() { c.active.Take(task.ID, "") }}, nil
}

// taskRefusal returns why a task is rejected ("" to accept it).
func (c *Channel) taskRefusal(ctx context.Context, task *envelope.Task, in bus.InboundMessage) string {
	c.mu.Lock()
	judge := c.judge
	c.mu.Unlock()
	busy := c.active.Len()
	switch {
	case c.Draining():
		return c.drainReason()
	case task.Deadline != nil && !task.Deadline.After(c.clk.Now()):
		return "deadline passed"
	case busy >= c.cfg.MaxConcurrentTasks:
		return fmt.Sprintf("over capacity (%d of %d tasks running)", busy, c.cfg.MaxConcurrentTasks)
	case judge != nil:
		if ok, why := judge(ctx, in); !ok {
			return "declined: " + why
		}
	}
	return ""
}

// onUpdate is the handler of a task_update. A cancel from the agent that
// gave this agent a task ends that task; any other update is about a task
// this agent delegated: its state is recorded and it is routed to the
// conversation the task began in, and a terminal one archives the task's
// messages — only when it comes from the agent the task was sent to. An
// update of a task this agent sent to that agent but no longer waits for
// (it ended, or went to another worker) is handed over as a plain notice
// and changes nothing; one of a task it never sent to that agent (nor
// received from it, for a cancel) is set aside with the reason.
func (c *Channel) onUpdate(ctx context.Context, d *store.Delivery, mt meta.Meta, in bus.InboundMessage) (verdict, error) {
	task := d.Message.Task
	if task.State == envelope.StateCanceled {
		if t, ok := c.active.Take(task.ID, mt.From); ok {
			c.waiting.done(task.ID, "")
			c.canceled.add(task.ID)
			c.denyTaskApprovals(ctx, task.ID, mt.From)
			c.cardChanged(ctx)
			if err := c.inbox.Ack(ctx, t.Delivery); err != nil {
				c.Logger().Warn("acknowledge canceled task", "task", task.ID, "err", err)
			}
			return verdict{publish: true, in: in, sweep: task.ID}, nil
		}
	}
	v := verdict{publish: true, in: in}
	rec, ok := c.sent.Lookup(task.ID, mt.From)
	if ok && c.toldBefore(ctx, rec, d.Message) {
		return verdict{}, nil // its notice was told already (delegated.go)
	}
	if ok && task.State.Terminal() {
		if sv, taken := c.stuckUpdate(ctx, rec, task, mt); taken {
			return sv, nil // stuck: escalated instead (escalation_triggers.go)
		}
	}
	if ok {
		if err := c.sent.SetState(ctx, rec.TaskID, task.State); err != nil {
			c.Logger().Warn("record task state", "task", rec.TaskID, "err", err)
		}
		mt.Tree = meta.TreeAt(rec.ParentTask, rec.ParentPath)
		v.in = routed(in, mt, rec.Callback)
		c.taskRejected(ctx, mt)
		if task.State.Terminal() {
			c.subtaskEnded(ctx, rec, task.Used)
		}
		if c.failParent(ctx, rec, task) {
			// The parent failed with the reason, which travels up the tree;
			// its conversation is over and has nothing to answer.
			v.publish = false
			c.waiting.done(rec.ParentTask, "")
		}
	}
	if ok {
		if task.State.Terminal() {
			v.sweep = task.ID // the task this agent delegated is over
		}
		return v, nil
	}
	switch {
	case c.storedTask(ctx, task.ID, mt.From):
		if task.State.Terminal() {
			v.sweep = task.ID
		}
	case task.State == envelope.StateCanceled && c.receivedTask(ctx, task.ID, mt.From):
		// A cancel of a task this agent no longer works on: it ended first.
	default:
		return verdict{setAside: fmt.Sprintf("task_update of task %s, which %s did not send to %s",
			task.ID, c.cfg.AgentID, mt.From)}, nil
	}
	return v, nil
}

// onMessage is the handler of a plain message. A message handed over
// again after a crash or a stop that this agent had answered already (a
// reply to it is stored), and a request answered from elsewhere on this
// agent's behalf before it came to read it, is acknowledged and not handed
// to the agent.
// A request (expects_reply) is held until this agent answers it. A reply to a task or
// request this agent sent is routed to the conversation it began in.
func (c *Channel) onMessage(ctx context.Context, d *store.Delivery, mt meta.Meta, in bus.InboundMessage) (verdict, error) {
	m := d.Message
	held := holdsForReply(m)
	if (d.Redelivered || held) && c.storedReply(ctx, view.PendingFromMessage(m)) {
		// Answered before a restart (the answer was sent, the message not
		// yet acknowledged), or by another process on this agent's behalf:
		// owed nothing, and not handed to the agent again.
		return verdict{}, nil
	}
	if d.Redelivered && c.holdForUnsent(m.ID, func() { c.finishLate(d, "") }) {
		return verdict{hold: true}, nil // answered; the answer waits to go out (unsent.go)
	}
	if m.ReplyTo != "" {
		rec, ok := c.sent.LookupMessage(m.ReplyTo, m.From)
		cb := rec.Callback
		if p, answered := c.replies.Answered(ctx, m.ReplyTo, m.From); !ok && answered {
			cb = p.Callback
		}
		in = routed(in, mt, cb)
	}
	if !held {
		return verdict{publish: true, in: in}, nil
	}
	c.replies.Hold(d) // acknowledged when answered (see Post and Archive)
	return verdict{publish: true, in: in, hold: true, undo: func() { c.replies.Release(m.ID, m.From) }}, nil
}

// finish acknowledges d and archives the messages of task sweep, if any.
// The acknowledgement is pipelined (store.Inbox.AckPipelined): the receive path
// goes on while the store makes it durable with others in one group
// commit; one that a machine crash undoes only brings the message back.
func (c *Channel) finish(ctx context.Context, d *store.Delivery, sweep string) error {
	id, from := d.Message.ID, d.Message.From
	err := c.inbox.AckPipelined(ctx, d, func(err error) {
		if err != nil {
			c.Logger().Warn("acknowledgement not made durable; after a machine crash the message may come back",
				"id", id, "from", from, "err", err)
		}
	})
	if err != nil {
		return err
	}
	if sweep != "" {
		ledger.Sweep(ctx, c.inbox, sweep, c.Logger())
	}
	return nil
}

// finishLate acknowledges d (see finish) outside the receive path.
func (c *Channel) finishLate(d *store.Delivery, sweep string) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := c.finish(ctx, d, sweep); err != nil {
		c.Logger().Warn("handled message not acknowledged; it comes back on restart",
			append(meta.MessageLogAttrs(d.Message), "err", err)...)
	}
}

// ackWhenDone is the bus.InboundMessage.Ack of delivery d: the agent says
// it has finished with the message, and only then is it acknowledged (so a
// crash or a stop mid-turn brings it back). A second call does nothing.
// It waits for recorded, closed once the receive path is done with d.
func (c *Channel) ackWhenDone(d *store.Delivery, sweep string, recorded <-chan struct{}) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			<-recorded // the receive path has logged the hand-over
			if c.holdForUnsent(d.Message.ID, func() { c.finishLate(d, sweep) }) {
				return // its answer is not sent yet: acknowledged when it is
			}
			c.finishLate(d, sweep)
		})
	}
}
