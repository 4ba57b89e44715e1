package agentloop

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/tracing"
)

// What the user, or the agent that sent a task, is told when a turn fails
// (the provider could not be reached, refused, or the turn broke): one
// short sentence; the error itself goes to the log.
const (
	// FailureReply answers a message whose turn failed.
	FailureReply = "I could not reach the model; try again in a minute."
	// FailureReason is the reason of a task failed that way.
	FailureReason = "the model could not be reached"
	// RefusalPrefix starts the answer to a message whose turn failed with
	// a *TaskFailure (a hook refused it: a spent budget, a daily cap); the
	// reason follows.
	RefusalPrefix = "I could not answer: "
)

// shown is the text the provider reads of in: its Note, when a channel
// framed it as a message from another agent, else its content.
func shown(in bus.InboundMessage) string {
	if in.Note != nil {
		return in.Note.String()
	}
	return in.Content
}

// handle runs one turn: it records the exchange and publishes the answer.
// It finishes with in (bus.InboundMessage.Done) once the answer was sent,
// or once the exchange is recorded when there is nothing to send; a turn
// cut short by a stop, a history that could not be saved or an answer
// that could not be delivered leaves in unfinished, so that its channel
// brings it back.
func (l *Loop) handle(ctx context.Context, in bus.InboundMessage) {
	if ctx.Err() != nil {
		return
	}
	k, content := in.Kind, shown(in)
	key := in.SessionKey()
	h := l.history.get(key)
	user := agent.Message{Role: agent.RoleUser, Content: content, Name: in.SenderID, InboundID: in.ID}
	if in.Redelivered && in.ID != "" {
		// Handled before a crash or a stop, and not finished then: send the
		// recorded answer again rather than ask the model again.
		if recorded, found, answered := h.answerOf(in.ID); answered {
			l.log.Info("answered already; sending the recorded answer", logAttrs(in, "session", key)...)
			l.send(ctx, in, answer{text: recorded, md: maps.Clone(in.Metadata)}, key)
			return
		} else if found && k == bus.KindRecord {
			in.Done()
			return
		}
	}
	if k == bus.KindNotice {
		if l.notices.templated() {
			l.tell(ctx, in, h, user, key)
			return
		}
		k = bus.KindChat // told by the model, as a chat message
	}
	if k == bus.KindRecord {
		if err := l.history.append(h, []agent.Message{user}); err != nil {
			l.log.Error("history not saved; the message comes back on restart", "session", key, "err", err)
			return
		}
		in.Done()
		return
	}
	l.log.Info("turn", logAttrs(in, "session", key, "from", in.SenderID)...)
	l.log.Debug("turn text", logAttrs(in, "session", key, "text", clip(content))...)
	turn := agent.NewTurn(in)
	tctx, end := hooks(l.cfg.Hooks).turn(ctx, turn)
	msgs, reply, err := l.approveTask(tctx, turn)
	if err == nil {
		msgs, reply, err = l.converse(tctx, turn, h, user)
	}
	end(err, turn.Usage())
	if ctx.Err() != nil {
		return // stopping: the turn did not happen (a mailbox message comes back on restart)
	}
	out := answer{md: maps.Clone(in.Metadata)}
	if err != nil {
		// The user hears one short sentence; the detail is for the log. The
		// failed turn stays out of the history, so the model never reads it.
		out.failure = FailureReason
		reply = FailureReply
		if tf := (*agent.TaskFailure)(nil); errors.As(err, &tf) && tf.Reason != "" {
			// A refusal on purpose (a spent budget, a cap): the user hears why.
			out.failure = tf.Reason
			reply = RefusalPrefix + tf.Reason
			l.log.Info("turn cannot be done; the turn is not recorded", logAttrs(in, "session", key, "reason", tf.Reason)...)
		} else {
			l.log.Error("turn failed; the user is told, the turn is not recorded", logAttrs(in, "session", key, "err", err)...)
		}
		if k == bus.KindTask {
			reply = "could not complete the task: " + out.failure
		}
	} else if err := l.history.append(h, msgs); err != nil {
		l.log.Error("history not saved", logAttrs(in, "session", key, "err", err)...)
	}
	if turn.Answered() {
		in.Done()
		return
	}
	out.text = reply
	l.send(tctx, in, out, key) // tctx: the answer joins the turn's trace
}

// answer is what the loop answers a message with.
type answer struct {
	text string
	// md is a copy of the inbound message's metadata: the channel finds
	// there what its answer answers.
	md map[string]any
	// failure is the reason the turn failed ("" when it did not): the
	// channel fails the task the message carried, if any.
	failure string
}

// send publishes a as the answer to in, and finishes with in once it is
// delivered. An empty answer (to anything but a task, which it ends) is
// no answer: in is finished at once.
func (l *Loop) send(ctx context.Context, in bus.InboundMessage, a answer, key string) {
	if a.text == "" && in.Kind != bus.KindTask {
		in.Done()
		return
	}
	l.log.Info("answer", logAttrs(in, "session", key, "channel", in.Channel, "chat", in.ChatID)...)
	l.log.Debug("answer text", logAttrs(in, "session", key, "text", clip(a.text))...)
	out := bus.OutboundMessage{Channel: in.Channel, ChatID: in.ChatID, Content: a.text, Metadata: a.md,
		TraceContext: traceContext(ctx, in), Thread: in.Thread, Failure: a.failure,
		Sent: func(err error) {
			if err != nil {
				l.log.Error("answer not delivered; the message it answers comes back on restart",
					logAttrs(in, "session", key, "err", err)...)
				return
			}
			in.Done()
		}}
	if err := l.cfg.Bus.PublishOutbound(ctx, out); err != nil {
		l.log.Error("reply not published; the message comes back on restart", logAttrs(in, "session", key, "err", err)...)
	}
}

// traceContext is the trace context of an answer to in sent under ctx:
// the turn's span, or in's own when ctx holds none.
func traceContext(ctx context.Context, in bus.InboundMessage) map[string]string {
	if tc := tracing.Inject(ctx); tc != nil {
		return tc
	}
	return in.TraceContext
}

// converse asks the provider until it answers without tool calls, running
// the tools it asks for. It returns the new messages (user message first),
// the final answer and the provider's error, if any.
func (l *Loop) converse(ctx context.Context, turn *agent.Turn, h *history, user agent.Message) (msgs []agent.Message, reply string, err error) {
	past := h.window(l.cfg.HistoryWindow)
	all := make([]agent.Message, 0, len(past)+8)
	all = append(all, agent.Message{Role: agent.RoleSystem, Content: l.systemPrompt()})
	all = append(all, past...)
	start := len(all)
	all = append(all, user)
	defer func() {
		if r := recover(); r != nil {
			l.log.Error("turn panicked", "session", turn.SessionKey, "panic", r)
			msgs, reply, err = all[start:], "", fmt.Errorf("internal error: %v", r)
		}
	}()
	specs := l.cfg.Tools.Specs()
	var status string
	if l.cfg.ToolStatus != nil {
		status = l.cfg.ToolStatus.Note() // once a turn: every round reads the same
	}
	for round := range l.cfg.MaxToolIterations {
		resp, err := hooks(l.cfg.Hooks).chat(ctx, l.cfg.Provider, turn, agent.Request{Model: l.cfg.Model, Messages: withNote(all, start, status),
			Tools: specs, MaxTokens: l.cfg.MaxTokens, Temperature: l.cfg.Temperature})
		if err != nil {
			return all[start:], "", err
		}
		turn.AddUsage(resp.Usage)
		calls := resp.ToolCalls
		for i := range calls {
			if calls[i].ID == "" {
				calls[i].ID = fmt.Sprintf("call_%d_%d", round, i)
			}
		}
		all = append(all, agent.Message{Role: agent.RoleAssistant, Content: resp.Content, ToolCalls: calls})
		if len(calls) == 0 {
			return all[start:], resp.Content, nil
		}
		for _, c := range calls {
			all = append(all, agent.Message{Role: agent.RoleTool, Name: c.Name, ToolCallID: c.ID, Content: l.runTool(ctx, turn, c)})
		}
		if text, ok := l.concluded(turn, resp.Content, calls); ok {
			// Every call did what was asked (work handed over): the
			// person is told so from the templates, without asking the
			// model again; it answers the result when it comes back.
			all = append(all, agent.Message{Role: agent.RoleAssistant, Content: text})
			return all[start:], text, nil
		}
	}
	note := fmt.Sprintf("I stopped after %d rounds of tool calls without reaching an answer (the limit is agents.defaults.maxToolIterations).",
		l.cfg.MaxToolIterations)
	all = append(all, agent.Message{Role: agent.RoleAssistant, Content: note})
	return all[start:], note, nil
}

// runTool executes one call; every failure becomes a result the model
// can read.
func (l *Loop) runTool(ctx context.Context, turn *agent.Turn, c agent.ToolCall) (out string) {
	tool, ok := l.cfg.Tools.Get(c.Name)
	if !ok {
		if l.cfg.ToolStatus != nil {
			if reason, down := l.cfg.ToolStatus.Unavailable(c.Name); down {
				return "error: " + reason
			}
		}
		return fmt.Sprintf("error: unknown tool %q (available: %v)", c.Name, l.cfg.Tools.Names())
	}
	defer func() {
		if r := recover(); r != nil {
			l.log.Error("tool panicked", "tool", c.Name, "panic", r)
			out = fmt.Sprintf("error: tool %s failed unexpectedly: %v", c.Name, r)
		}
	}()
	if l.gate != nil && l.gate.cfg.toolNeeds(c.Name) {
		d := l.gate.ask(ctx, turn, ApprovalTool, "run tool "+c.Name, c.Arguments)
		if !d.Allow {
			res := deniedResult("running tool "+c.Name, d)
			l.log.Info("tool denied", "session", turn.SessionKey, "tool", c.Name, "by", d.By)
			return res
		}
	}
	ctx, end := hooks(l.cfg.Hooks).tool(ctx, turn, c)
	res, err := tool.Execute(ctx, agent.Call{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Turn: turn})
	if err != nil {
		res = "error: " + err.Error()
	}
	end(res, err != nil)
	l.log.Info("tool", logAttrs(turn.Inbound, "session", turn.SessionKey, "tool", c.Name, "failed", err != nil)...)
	l.log.Debug("tool text", logAttrs(turn.Inbound, "session", turn.SessionKey, "tool", c.Name,
		"args", clip(c.Arguments), "result", clip(res))...)
	return res
}

// logAttrs returns the attributes of a log line about in (its id, thread
// and trace: see tracing.LogAttrs) followed by more.
func logAttrs(in bus.InboundMessage, more ...any) []any {
	return append(tracing.LogAttrs(in.ID, in.Thread, in.TraceContext), more...)
}

// maxLogText caps the text quoted in a log line.
const maxLogText = 300

// clip shortens s for a log line.
func clip(s string) string {
	if len(s) <= maxLogText {
		return s
	}
	cut := maxLogText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
