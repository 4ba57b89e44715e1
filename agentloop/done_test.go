package agentloop_test

import (
	"context"
	"errors"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// withAck returns in with an Ack that reports on done.
func withAck(in bus.InboundMessage, done chan<- string) bus.InboundMessage {
	in.Ack = func() { done <- in.Content }
	return in
}

// The loop finishes with a message only once its answer is delivered: not
// when the answer is published, not when its delivery fails.
func TestLoopFinishesAMessageWhenItsAnswerIsSent(t *testing.T) {
	s := start(t, agentloop.Config{Provider: scripted.New()})
	done := make(chan string, 4)
	s.send(t, withAck(user("chat1", "sort 2 1"), done))
	out := s.take(t)
	select {
	case c := <-done:
		t.Fatalf("%q finished before its answer was delivered", c)
	default:
	}
	out.Settle(nil)
	assert.Equal(t, "sort 2 1", testkit.Recv(t, done, "the message finished"))

	s.send(t, withAck(user("chat1", "sort 4 3"), done))
	s.take(t).Settle(errors.New("the platform refused it"))
	s.send(t, withAck(user("chat1", "sort 6 5"), done))
	s.recv(t)
	assert.Equal(t, "sort 6 5", testkit.Recv(t, done, "the next message finished"),
		"a message whose answer was not delivered is not finished")
}

// A turn cut short by a stop leaves its message unfinished, so that its
// channel brings it back.
func TestLoopLeavesAMessageCutShortUnfinished(t *testing.T) {
	gate := make(chan struct{})
	b := bus.New(4)
	l, err := agentloop.New(agentloop.Config{Bus: b, Workspace: t.TempDir(), Provider: blocking{gate}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() { ended <- l.Run(ctx) }()
	done := make(chan string, 1)
	entered := withAck(user("chat1", "anything"), done)
	if err := b.PublishInbound(testkit.Ctx(t), entered); err != nil {
		t.Fatal(err)
	}
	testkit.Recv(t, gate, "the provider called")
	cancel()
	testkit.Recv(t, ended, "the loop's end")
	select {
	case c := <-done:
		t.Fatalf("%q was finished though its turn was cut short", c)
	default:
	}
}

// blocking is a provider that tells gate it was called and then waits for
// its context to end.
type blocking struct{ gate chan struct{} }

func (p blocking) Chat(ctx context.Context, _ agent.Request) (*agent.Response, error) {
	p.gate <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}
