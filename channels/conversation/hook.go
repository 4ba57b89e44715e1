package conversation

import (
	"context"
	"strings"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
)

// delegateTool is the name of the tool that delegates a task (the
// mailbox's); its result starts "delegated task <id> to <agent>; ...".
const delegateTool = "delegate_task"

// delegation reads the task id and the agent from delegate_task's result.
func delegation(result string) (task, to string, ok bool) {
	rest, ok := strings.CutPrefix(result, "delegated task ")
	if !ok {
		return "", "", false
	}
	f := strings.Fields(rest)
	if len(f) < 3 || f[1] != "to" {
		return "", "", false
	}
	return f[0], strings.TrimRight(f[2], ";"), true
}

// final reports whether a task in state has ended.
func final(state string) bool {
	switch state {
	case "completed", "failed", "rejected", "canceled":
		return true
	}
	return false
}

// turnKey names a turn in progress.
type turnKey = *agent.Turn

// turnState is what the Hook learns of a turn while it runs.
type turnState struct {
	chat string
	// last is the provider's latest answer; nil before the first.
	last *agent.Response
}

// Hook returns the agent.Hook that follows the turns of the channel's
// chats (a channel offers it to the agent loop: agentloop.HookChannel).
// It learns of the tasks a turn delegates (the delegate_task tool's
// result), of the final update of each (a turn on a task_update note
// with a final state), and of the turns in progress and the answers they
// will send, for Status and Follow. It refuses nothing.
func (b *Book) Hook() agent.Hook { return hook{b: b} }

type hook struct{ b *Book }

var _ agent.Hook = hook{}

// Turn implements agent.Hook.
func (h hook) Turn(ctx context.Context, t *agent.Turn) (context.Context, func(error, agent.Usage)) {
	if t == nil || t.Inbound.Channel != h.b.channel {
		return ctx, func(error, agent.Usage) {}
	}
	h.b.turnStarted(t)
	return ctx, func(err error, _ agent.Usage) { h.b.turnEnded(t, err) }
}

// Chat implements agent.Hook.
func (h hook) Chat(ctx context.Context, t *agent.Turn, _ *agent.Request) (context.Context, func(*agent.Response, error), error) {
	return ctx, func(resp *agent.Response, err error) {
		if err == nil && resp != nil {
			h.b.answered(t, resp)
		}
	}, nil
}

// Tool implements agent.Hook.
func (h hook) Tool(ctx context.Context, t *agent.Turn, c agent.ToolCall) (context.Context, func(string, bool)) {
	if c.Name != delegateTool {
		return ctx, func(string, bool) {}
	}
	return ctx, func(result string, failed bool) {
		if task, to, ok := delegation(result); ok && !failed {
			h.b.delegated(t, task, to)
		}
	}
}

// turnStarted records a turn of the channel in progress; a task's final
// update ends the task.
func (b *Book) turnStarted(t *agent.Turn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.chatLocked(t.Inbound.ChatID)
	b.turns[t] = &turnState{chat: t.Inbound.ChatID}
	c.turns++
	if n := t.Inbound.Note; n != nil && n.Type == bus.NoteTaskUpdate && final(n.State) {
		delete(c.open, n.TaskID)
	}
	c.notify()
}

// answered records the provider's latest answer in t.
func (b *Book) answered(t *agent.Turn, resp *agent.Response) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ts, ok := b.turns[t]; ok {
		ts.last = resp
	}
}

// delegated records a task delegated in t.
func (b *Book) delegated(t *agent.Turn, task, to string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ts, ok := b.turns[t]; ok {
		c := b.chatLocked(ts.chat)
		c.open[task] = to
		c.notify()
	}
}

// turnEnded records t ended, and whether it sends an answer: the agent
// loop sends one for a turn that failed (a sentence that says so), for a
// turn that gave up after its rounds of tool calls (a note that says so)
// and for a non-empty final text, unless a tool answered already
// (agent.Turn.Answered).
func (b *Book) turnEnded(t *agent.Turn, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ts, ok := b.turns[t]
	if !ok {
		return
	}
	delete(b.turns, t)
	c := b.chatLocked(ts.chat)
	c.turns--
	sends := err != nil || (ts.last != nil && (ts.last.Content != "" || len(ts.last.ToolCalls) > 0))
	if sends && !t.Answered() {
		c.expected++
	}
	c.notify()
}
