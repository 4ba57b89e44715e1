package agentloop_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/bus"
)

func TestLoopAnswersWithScripted(t *testing.T) {
	s := start(t, agentloop.Config{Provider: scripted.New()})
	in := user("chat1", "sort 5 3 9 1")
	in.Metadata = map[string]any{"thread": "t1"}
	s.send(t, in)
	out := s.recv(t)
	assert.Equal(t, bus.OutboundMessage{Channel: "feishu", ChatID: "chat1", Content: "1 3 5 9",
		Metadata: map[string]any{"thread": "t1"}}, out)
}

func TestLoopMessagesOfASessionAreSerial(t *testing.T) {
	entered := make(chan string, 10)
	release := make(chan struct{})
	var mu sync.Mutex
	calls := map[string]int{}
	p := providerFunc(func(ctx context.Context, req agent.Request) (*agent.Response, error) {
		text := lastUser(req)
		mu.Lock()
		calls[text]++
		mu.Unlock()
		entered <- text
		if text == "a1" {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return &agent.Response{Content: "done " + text}, nil
	})
	s := start(t, agentloop.Config{Provider: p})
	s.send(t, user("a", "a1"))
	assert.Equal(t, "a1", waitFor(t, entered, "a1 in the provider"))
	s.send(t, user("a", "a2")) // queued behind a1
	s.send(t, user("b", "b1")) // another session: goes ahead
	assert.Equal(t, "b1", waitFor(t, entered, "b1 in the provider"))
	assert.Equal(t, "done b1", s.recv(t).Content)
	// b1 was taken from the bus after a2, so a2 is queued: it must still wait.
	mu.Lock()
	assert.Zero(t, calls["a2"], "a2 reached the provider while a1 was still in it")
	mu.Unlock()
	close(release)
	assert.Equal(t, "done a1", s.recv(t).Content)
	assert.Equal(t, "done a2", s.recv(t).Content)
}

func TestLoopNeverRunsOneSessionTwice(t *testing.T) {
	var mu sync.Mutex
	inflight, peak := map[string]int{}, 0
	p := providerFunc(func(_ context.Context, req agent.Request) (*agent.Response, error) {
		session, _, _ := strings.Cut(lastUser(req), "/")
		mu.Lock()
		inflight[session]++
		peak = max(peak, inflight[session])
		mu.Unlock()
		defer func() { mu.Lock(); inflight[session]--; mu.Unlock() }()
		return &agent.Response{Content: lastUser(req)}, nil
	})
	s := start(t, agentloop.Config{Provider: p, MaxConcurrentSessions: 4})
	const sessions, each = 3, 15
	for i := range each {
		for j := range sessions {
			s.send(t, user(fmt.Sprint(j), fmt.Sprintf("%d/%d", j, i)))
		}
	}
	next := map[string]int{}
	for range sessions * each {
		out := s.recv(t)
		assert.Equal(t, fmt.Sprintf("%s/%d", out.ChatID, next[out.ChatID]), out.Content, "replies out of order")
		next[out.ChatID]++
	}
	assert.Equal(t, 1, peak, "a session had two turns at once")
}

func TestLoopRunsSessionsConcurrently(t *testing.T) {
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	p := providerFunc(func(ctx context.Context, _ agent.Request) (*agent.Response, error) {
		mu.Lock()
		if arrived++; arrived == 2 {
			close(both)
		}
		mu.Unlock()
		select {
		case <-both:
			return &agent.Response{Content: "together"}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	s := start(t, agentloop.Config{Provider: p})
	s.send(t, user("a", "hi"))
	s.send(t, user("b", "hi"))
	assert.Equal(t, "together", s.recv(t).Content)
	assert.Equal(t, "together", s.recv(t).Content)
}

func TestLoopBoundsConcurrentSessions(t *testing.T) {
	var mu sync.Mutex
	inflight, peak := 0, 0
	entered := make(chan struct{}, 5)
	release := make(chan struct{})
	p := providerFunc(func(ctx context.Context, req agent.Request) (*agent.Response, error) {
		mu.Lock()
		inflight++
		peak = max(peak, inflight)
		mu.Unlock()
		entered <- struct{}{}
		defer func() { mu.Lock(); inflight--; mu.Unlock() }()
		select {
		case <-release:
			return &agent.Response{Content: lastUser(req)}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	s := start(t, agentloop.Config{Provider: p, MaxConcurrentSessions: 2})
	for i := range 5 {
		s.send(t, user(fmt.Sprint(i), "work"))
	}
	waitFor(t, entered, "first turn")
	waitFor(t, entered, "second turn")
	for i := range 5 {
		mu.Lock()
		assert.LessOrEqual(t, inflight, 2)
		mu.Unlock()
		release <- struct{}{}
		s.recv(t)
		if i < 3 {
			waitFor(t, entered, "next turn")
		}
	}
	assert.Equal(t, 2, peak)
}

// A failed turn is answered with one short sentence (the detail goes to
// the log) and is not written into the history the model reads next.
func TestLoopProviderFailureIsOneSentenceAndNotRecorded(t *testing.T) {
	for _, tt := range []struct {
		name string
		fail func() (*agent.Response, error)
	}{
		{"error", func() (*agent.Response, error) { return nil, errors.New("401 invalid key sk-secret") }},
		{"no answer", func() (*agent.Response, error) { return nil, nil }},
		{"panic", func() (*agent.Response, error) { panic("bug") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{next: providerFunc(func(_ context.Context, req agent.Request) (*agent.Response, error) {
				if lastUser(req) == "hello" {
					return tt.fail()
				}
				return echo()(context.Background(), req)
			})}
			s := start(t, agentloop.Config{Provider: rec})
			s.send(t, user("c", "hello"))
			assert.Equal(t, agentloop.FailureReply, s.recv(t).Content)
			s.send(t, user("c", "again"))
			assert.Equal(t, "echo: again", s.recv(t).Content)
			reqs := rec.requests()
			assert.Equal(t, []string{"user: again"}, convo(reqs[len(reqs)-1]), "the failed turn is not in the history")
		})
	}
}

func TestLoopEmptyAnswerToUserIsNotSent(t *testing.T) {
	p := providerFunc(func(_ context.Context, req agent.Request) (*agent.Response, error) {
		if lastUser(req) == "quiet" {
			return &agent.Response{}, nil
		}
		return &agent.Response{Content: "loud"}, nil
	})
	s := start(t, agentloop.Config{Provider: p})
	s.send(t, user("c", "quiet"))
	s.send(t, user("c", "speak"))
	assert.Equal(t, "loud", s.recv(t).Content)
}
