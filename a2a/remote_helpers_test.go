package a2a_test

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/stretchr/testify/require"

	a2agw "github.com/switchboard-dev/switchboard/a2a"
	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// echoAgent is an A2A agent built from the SDK: it echoes the text of a
// task's message. With ask, a new task first asks a question and echoes
// the answer; with hold, it works until hold is closed. It counts the
// tasks it was given and the cancels.
type echoAgent struct {
	ask      bool
	hold     chan struct{}
	created  atomic.Int32
	canceled chan struct{}                  // a token per cancel (nil: not counted)
	meta     atomic.Pointer[map[string]any] // the metadata of the last new task's message
	header   atomic.Pointer[http.Header]    // the headers of the last request
}

// Execute implements a2asrv.AgentExecutor.
func (e *echoAgent) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		text := convert.MessageText(ec.Message)
		if ec.StoredTask == nil {
			e.created.Add(1)
			md := ec.Message.Metadata
			e.meta.Store(&md)
			if !yield(a2a.NewSubmittedTask(ec, ec.Message), nil) {
				return
			}
			if e.ask {
				yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateInputRequired, convert.AgentMessage(ec, "which colour?")), nil)
				return
			}
		}
		if !yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateWorking, nil), nil) {
			return
		}
		if e.hold != nil {
			select {
			case <-e.hold:
			case <-ctx.Done():
				return
			}
		}
		art := a2a.NewArtifactEvent(ec, a2a.NewTextPart("echo: "+text))
		art.LastChunk = true
		if !yield(art, nil) {
			return
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCompleted, nil), nil)
	}
}

// Cancel implements a2asrv.AgentExecutor.
func (e *echoAgent) Cancel(_ context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		if e.canceled != nil {
			e.canceled <- struct{}{}
		}
		yield(a2a.NewStatusUpdateEvent(ec, a2a.TaskStateCanceled, nil), nil)
	}
}

// serveEcho serves e over JSON-RPC, in A2A 1.0, or 0.3 with v0, with a
// card that says whether it streams.
func serveEcho(t *testing.T, e *echoAgent, v0, streaming bool) string {
	t.Helper()
	url, _ := serveEchoServer(t, e, v0, streaming)
	return url
}

// serveEchoServer is serveEcho that also returns the server.
func serveEchoServer(t *testing.T, e *echoAgent, v0, streaming bool) (string, *httptest.Server) {
	t.Helper()
	h := a2asrv.NewHandler(e)
	mux := http.NewServeMux()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := r.Header.Clone()
		e.header.Store(&hd)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	card := &a2a.AgentCard{Name: "Echo Agent", Description: "Echoes what it is told", Version: "1.0.0",
		Capabilities:       a2a.AgentCapabilities{Streaming: streaming},
		DefaultInputModes:  []string{"text/plain"},
		DefaultOutputModes: []string{"text/plain"},
		Skills: []a2a.AgentSkill{{ID: "echoing", Name: "Echo", Description: "says it back", Tags: []string{}},
			{ID: "repeating", Name: "Repeat", Description: "says it back", Tags: []string{}}}}
	if v0 {
		card.SupportedInterfaces = []*a2a.AgentInterface{{URL: srv.URL + "/rpc", ProtocolBinding: a2a.TransportProtocolJSONRPC, ProtocolVersion: a2av0.Version}}
		mux.Handle("/rpc", a2av0.NewJSONRPCHandler(h))
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card)))
	} else {
		card.SupportedInterfaces = []*a2a.AgentInterface{a2a.NewAgentInterface(srv.URL+"/rpc", a2a.TransportProtocolJSONRPC)}
		mux.Handle("/rpc", a2asrv.NewJSONRPCHandler(h))
		mux.Handle(a2asrv.WellKnownAgentCardPath, a2asrv.NewStaticAgentCardHandler(card))
	}
	return srv.URL, srv
}

// connectConfig connects the agent at url as echo.
func connectConfig(url string, change func(*a2agw.RemoteConfig)) a2agw.Config {
	cfg := a2agw.DefaultConfig()
	r := a2agw.DefaultRemote()
	r.URL, r.PollInterval = url, 0.05
	if change != nil {
		change(&r)
	}
	cfg.Enabled, cfg.Connect = true, map[string]a2agw.RemoteConfig{"echo": r}
	return cfg
}

// lead is a mailbox agent of a test that delegates, and records what it
// receives.
type lead struct {
	ch  *mailbox.Channel
	got *testkit.Log[meta.Meta]
	in  *testkit.Log[bus.InboundMessage]
}

// startLead runs agent "lead" on the folder store in root.
func startLead(t *testing.T, root string) *lead {
	t.Helper()
	cfg, _ := settings(root)("lead")
	b := bus.New(4)
	ch, err := mailbox.New(cfg, b, mailbox.Options{})
	require.NoError(t, err)
	require.NoError(t, ch.Start(testkit.Ctx(t)))
	l := &lead{ch: ch, got: testkit.NewLog[meta.Meta](), in: testkit.NewLog[bus.InboundMessage]()}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			m, err := b.ConsumeInbound(ctx)
			if err != nil {
				return
			}
			if mt, ok := meta.Of(m.Metadata); ok {
				l.got.Add(*mt)
			}
			l.in.Add(m)
			m.Done()
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		stop, end := context.WithTimeout(context.Background(), 10*time.Second)
		defer end()
		_ = ch.Stop(stop)
		b.Close()
	})
	return l
}

// update waits for the update of task id in state (any: "").
func (l *lead) update(t *testing.T, id, state string) meta.Meta {
	t.Helper()
	return l.got.WaitFor(t, "update "+state+" of "+id, func(m meta.Meta) bool {
		return m.Task != nil && m.Task.ID == id && (state == "" || string(m.Task.State) == state)
	})
}
