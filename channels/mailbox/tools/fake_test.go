package tools_test

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// fakeMailbox records what the tools ask of the mailbox.
type fakeMailbox struct {
	id        string
	agents    []view.Agent
	agentsErr error
	postErr   error
	finishErr error
	skip      map[string]error // PostTo skips these recipients

	mu       sync.Mutex
	posted   []route.Request
	finished []finish
}

type finish struct {
	TaskID       string
	State        envelope.TaskState
	Text, Reason string
}

func agentCard(id string, status envelope.Status, free int, caps ...string) view.Agent {
	return view.Agent{Card: envelope.Card{AgentID: id, Description: id + " agent", Capabilities: caps,
		Status: status, MaxConcurrentTasks: 3, CurrentTasks: make([]string, 3-free)}, Effective: status}
}

func newFake() *fakeMailbox {
	return &fakeMailbox{id: "researcher", agents: []view.Agent{
		agentCard("coder", envelope.StatusIdle, 3, "sorting", "counting"),
		agentCard("helper", envelope.StatusBusy, 2, "counting"),
		agentCard("researcher", envelope.StatusIdle, 3, "research"),
		agentCard("sleeper", envelope.StatusOffline, 3, "sorting"),
	}}
}

func (f *fakeMailbox) AgentID() string { return f.id }

func (f *fakeMailbox) Agents(_ context.Context, onlineOnly bool) ([]view.Agent, error) {
	if f.agentsErr != nil {
		return nil, f.agentsErr
	}
	var out []view.Agent
	for _, a := range f.agents {
		if !onlineOnly || a.Effective != envelope.StatusOffline {
			out = append(out, a)
		}
	}
	return out, nil
}

func (f *fakeMailbox) PickByCapability(ctx context.Context, capability string) (view.Agent, error) {
	agents, err := f.Agents(ctx, true)
	if err != nil {
		return view.Agent{}, err
	}
	agents = slices.DeleteFunc(agents, func(a view.Agent) bool { return a.AgentID == f.id || !a.HasCapability(capability) })
	slices.SortStableFunc(agents, func(a, b view.Agent) int { return cmp.Compare(b.FreeSlots(), a.FreeSlots()) })
	if len(agents) == 0 {
		return view.Agent{}, fmt.Errorf("capability %q: %w offers it", capability, route.ErrNoAgent)
	}
	return agents[0], nil
}

func (f *fakeMailbox) Post(_ context.Context, req route.Request) (*envelope.Message, error) {
	if f.postErr != nil {
		return nil, f.postErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.posted = append(f.posted, req)
	n := len(f.posted)
	msg := &envelope.Message{ID: fmt.Sprintf("msg-%d", n), From: f.id, To: req.To, Type: cmp.Or(req.Type, envelope.TypeMessage)}
	if msg.Type == envelope.TypeTask {
		msg.Task = &envelope.Task{ID: fmt.Sprintf("task_%d", n), State: envelope.StatePending}
	}
	return msg, nil
}

// PostTo resolves target over the fake's agents (not the sender) and
// posts a copy to each; a recipient in skip is reported as skipped.
func (f *fakeMailbox) PostTo(ctx context.Context, target string, req route.Request) (route.Fanout, error) {
	t, err := route.ParseTarget(target)
	if err != nil {
		return route.Fanout{}, err
	}
	var to []string
	for _, a := range f.agents {
		var ok bool
		switch t.Kind {
		case route.TargetAll:
			ok = true
		case route.TargetCap:
			ok = a.HasCapability(t.Name)
		case route.TargetRole:
			ok = a.HasRole(t.Name)
		case route.TargetName:
			ok = a.HasCapability(t.Name) || a.HasRole(t.Name)
		case route.TargetPattern:
			ok, _ = path.Match(t.Name, a.AgentID)
		}
		if ok && a.AgentID != f.id {
			to = append(to, a.AgentID)
		}
	}
	if t.Kind == route.TargetAny {
		a, err := f.PickByCapability(ctx, t.Name)
		if err != nil {
			return route.Fanout{}, err
		}
		to = []string{a.AgentID}
	}
	if len(to) == 0 {
		return route.Fanout{}, fmt.Errorf("target %s: %w", t, route.ErrUnknownTarget)
	}
	var out route.Fanout
	for _, id := range to {
		if err := f.skip[id]; err != nil {
			out.Skipped = append(out.Skipped, route.Skipped{To: id, Err: err})
			continue
		}
		r := req
		r.To = id
		msg, err := f.Post(ctx, r)
		if err != nil {
			return out, err
		}
		msg.ThreadID = msg.ID
		if len(out.Sent) > 0 {
			msg.ThreadID = out.Sent[0].ID
		}
		out.Sent = append(out.Sent, msg)
	}
	return out, nil
}

func (f *fakeMailbox) FinishTask(_ context.Context, taskID string, state envelope.TaskState, text, reason string, _ []envelope.Part) (*envelope.Message, error) {
	if f.finishErr != nil {
		return nil, f.finishErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finished = append(f.finished, finish{taskID, state, text, reason})
	return &envelope.Message{ID: "update"}, nil
}

func (f *fakeMailbox) posts() []route.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.posted)
}

func (f *fakeMailbox) Attach(_ context.Context, path string) (envelope.Part, error) {
	return envelope.FilePart(path), nil
}

func (f *fakeMailbox) FetchArtifact(_ context.Context, p envelope.Part) (string, error) {
	return p.Path, nil
}

func (f *fakeMailbox) Reservations() (*store.Reservations, error) {
	return nil, store.ErrNotSupported
}

func (f *fakeMailbox) DecideEscalation(context.Context, string, store.EscalationDecision) (store.Escalation, error) {
	return store.Escalation{}, store.ErrNotSupported
}
