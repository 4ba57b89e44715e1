package a2a_test

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/stretchr/testify/require"

	a2agw "github.com/switchboard-dev/switchboard/a2a"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"   // the backend "fs"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore" // the backend "nats"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
	"github.com/switchboard-dev/switchboard/tracing"
)

// natsTeams are the NATS stores of the tests that run on NATS, by the
// root they were given (see natsTeam).
var natsTeams sync.Map

// natsTeam returns a root for the helpers that stands for a namespace of
// its own on the test binary's shared NATS server: the identities of a
// test given it use the NATS store.
func natsTeam(t *testing.T) string {
	root := t.TempDir()
	ns := natstest.NewNamespace()
	section := config.Section{Path: "channels.mailbox.nats", Raw: ns.Section(natstest.Shared(t))}
	natsTeams.Store(root, section)
	return root
}

// settings are the mailbox settings of every identity of a test: the
// folder store in root, without fsync (or the NATS namespace natsTeam
// gave as root).
func settings(root string) func(string) (mailbox.Config, error) {
	return func(id string) (mailbox.Config, error) {
		c := mailbox.DefaultConfig()
		if sec, ok := natsTeams.Load(root); ok {
			c.Backend, c.Stores = "nats", map[string]config.Section{"nats": sec.(config.Section)}
		}
		c.AgentID, c.Enabled, c.MailboxesRoot, c.Fsync = id, true, root, false
		c.AcceptTimeout = 60
		return c, nil
	}
}

// worker is a mailbox agent of a test that does its tasks with do: the
// state, text and reason it ends them with. It records each task's meta.
type worker struct {
	ch       *mailbox.Channel
	tasks    *testkit.Log[meta.Meta]
	finished *testkit.Log[string]    // the tasks it ended, by id
	traces   *testkit.Log[string]    // the trace id of each task, as its receipt says
	other    *testkit.Log[meta.Meta] // what else it received (cancels, messages)
}

// startWorker runs agent id on the folder store in root; judge, when not
// nil, decides which tasks it accepts.
func startWorker(t *testing.T, root, id string, capabilities []string, judge mailbox.Judge,
	do func(ctx context.Context, mt meta.Meta) (envelope.TaskState, string, string)) *worker {
	t.Helper()
	cfg, _ := settings(root)(id)
	cfg.Capabilities, cfg.Description = capabilities, id+" of the test"
	b := bus.New(4)
	ch, err := mailbox.New(cfg, b, mailbox.Options{})
	require.NoError(t, err)
	if judge != nil {
		ch.SetJudge(judge)
	}
	require.NoError(t, ch.Start(testkit.Ctx(t)))
	w := &worker{ch: ch, tasks: testkit.NewLog[meta.Meta](), finished: testkit.NewLog[string](), traces: testkit.NewLog[string](), other: testkit.NewLog[meta.Meta]()}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			m, err := b.ConsumeInbound(ctx)
			if err != nil {
				return
			}
			mt, _ := meta.Of(m.Metadata)
			if mt == nil || !mt.IsTask() {
				if mt != nil {
					w.other.Add(*mt)
				}
				m.Done()
				continue
			}
			w.traces.Add(tracing.TraceID(m.TraceContext[tracing.KeyTraceparent]))
			w.tasks.Add(*mt)
			wg.Go(func() {
				state, text, reason := do(ctx, *mt)
				if state == "" {
					return // the test ends it, or it was canceled
				}
				if _, err := ch.FinishTask(context.Background(), mt.Task.ID, state, text, reason, nil); err == nil {
					w.finished.Add(mt.Task.ID)
				}
			})
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		stop, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = ch.Stop(stop)
		b.Close()
	})
	return w
}

// startGateway runs a gateway of cfg on the folder store in root.
func startGateway(t *testing.T, root string, cfg a2agw.Config) *a2agw.Gateway {
	t.Helper()
	g, err := a2agw.New(cfg, a2agw.Options{Mailbox: settings(root), Version: "test"})
	require.NoError(t, err)
	require.NoError(t, g.Start(testkit.Ctx(t)))
	t.Cleanup(func() {
		stop, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = g.Stop(stop)
	})
	return g
}

// serveConfig is a gateway serving agents on a free loopback port.
func serveConfig(agents ...string) a2agw.Config {
	cfg := a2agw.DefaultConfig()
	cfg.Enabled, cfg.Listen, cfg.Serve = true, "127.0.0.1:0", agents
	return cfg
}

// newClient resolves the card at url and returns the SDK's client for it
// (1.0 and 0.3 transports, prefer first when set).
func newClient(t *testing.T, url string, prefer ...a2a.TransportProtocol) *a2aclient.Client {
	t.Helper()
	ctx := testkit.Ctx(t)
	card, err := (&agentcard.Resolver{Client: http.DefaultClient, CardParser: a2av0.NewAgentCardParser()}).Resolve(ctx, url)
	require.NoError(t, err)
	opts := []a2aclient.FactoryOption{
		a2av0.WithJSONRPCTransport(a2av0.JSONRPCTransportConfig{}),
		a2av0.WithRESTTransport(a2av0.RESTTransportConfig{}),
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: prefer}),
	}
	c, err := a2aclient.NewFromCard(ctx, card, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Destroy() })
	return c
}

// userMessage is a user's text message.
func userMessage(text string) *a2a.SendMessageRequest {
	return &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart(text))}
}

// stream sends text streaming and returns the events up to the end.
func stream(t *testing.T, c *a2aclient.Client, req *a2a.SendMessageRequest) []a2a.Event {
	t.Helper()
	var out []a2a.Event
	for ev, err := range c.SendStreamingMessage(testkit.Ctx(t), req) {
		require.NoError(t, err)
		out = append(out, ev)
	}
	return out
}

// states lists the task states the events say, in order.
func states(events []a2a.Event) []a2a.TaskState {
	var out []a2a.TaskState
	for _, ev := range events {
		switch e := ev.(type) {
		case *a2a.Task:
			out = append(out, e.Status.State)
		case *a2a.TaskStatusUpdateEvent:
			out = append(out, e.Status.State)
		}
	}
	return out
}

// withToken is a context whose calls carry token as a bearer token.
func withToken(t *testing.T, token string) context.Context {
	return a2aclient.AttachServiceParams(testkit.Ctx(t), a2aclient.ServiceParams{"authorization": {"Bearer " + token}})
}
