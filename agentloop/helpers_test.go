package agentloop_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// providerFunc adapts a function to agentloop.Provider.
type providerFunc func(ctx context.Context, req agent.Request) (*agent.Response, error)

func (f providerFunc) Chat(ctx context.Context, req agent.Request) (*agent.Response, error) {
	return f(ctx, req)
}

// echo answers "echo: <last user message>".
func echo() providerFunc {
	return func(_ context.Context, req agent.Request) (*agent.Response, error) {
		return &agent.Response{Content: "echo: " + lastUser(req)}, nil
	}
}

func lastUser(req agent.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == agent.RoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

// recorder keeps a copy of every request.
type recorder struct {
	mu   sync.Mutex
	reqs []agent.Request
	next agent.Provider
}

func (r *recorder) Chat(ctx context.Context, req agent.Request) (*agent.Response, error) {
	r.mu.Lock()
	cp := req
	cp.Messages = append([]agent.Message(nil), req.Messages...)
	r.reqs = append(r.reqs, cp)
	r.mu.Unlock()
	return r.next.Chat(ctx, req)
}

func (r *recorder) requests() []agent.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]agent.Request(nil), r.reqs...)
}

// started is a running Loop and its bus.
type started struct {
	loop *agentloop.Loop
	bus  *bus.Bus
	stop func()
}

// start creates a Loop with cfg (a fresh bus and workspace unless set)
// and runs it until the test ends or stop is called.
func start(t *testing.T, cfg agentloop.Config) *started {
	t.Helper()
	if cfg.Bus == nil {
		cfg.Bus = bus.New(64)
	}
	if cfg.Workspace == "" {
		cfg.Workspace = t.TempDir()
	}
	l, err := agentloop.New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Run returned %v, want context.Canceled", err)
				}
			case <-time.After(testkit.WaitLimit):
				t.Error("Run did not return after cancel")
			}
		})
	}
	t.Cleanup(stop)
	return &started{loop: l, bus: cfg.Bus, stop: stop}
}

func (s *started) send(t *testing.T, in bus.InboundMessage) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	require.NoError(t, s.bus.PublishInbound(ctx, in))
}

// recv returns the next answer, delivered: its Sent is told so (as the
// channel manager does) and then cleared, for comparisons.
func (s *started) recv(t *testing.T) bus.OutboundMessage {
	t.Helper()
	out := s.take(t)
	out.Settle(nil)
	out.Sent = nil
	return out
}

// take returns the next answer as the loop published it, not delivered.
func (s *started) take(t *testing.T) bus.OutboundMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	out, err := s.bus.ConsumeOutbound(ctx)
	require.NoError(t, err, "no reply")
	return out
}

// user returns a message from a user of channel "feishu".
func user(chat, text string) bus.InboundMessage {
	return bus.InboundMessage{Channel: "feishu", SenderID: "u_" + chat, ChatID: chat, Content: text}
}

// waitFor receives from ch or fails the test.
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(testkit.WaitLimit):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}
