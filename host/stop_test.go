package host_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
	feishustub "github.com/switchboard-dev/switchboard/internal/feishustub"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The host is stopped while its loop is busy with one message and a second
// one is already on the bus (taken from the inbox, not acknowledged), and a
// third arrives once the intake has stopped: the first two are answered
// (and only then acknowledged) before the host stops, the third waits in
// the inbox and is answered after the next start. Nothing is acknowledged
// and then lost.
func TestHostStopAnswersWhatItReceived(t *testing.T) {
	w := newWorld(t)
	st, err := fsstore.Open(fsstore.Options{Root: w.root})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	events, logs := testkit.NewEvents(), logSignals{testkit.NewLog[string]()}
	gate := &gatedProvider{hold: "first", entered: make(chan struct{}), release: make(chan struct{})}
	cfg := w.config("coder", false, nil)
	h := w.start(cfg, host.Options{Provider: gate, Registry: observedRegistry(events.Observe), Logger: slog.New(logs)})

	first := sendAs(t, st, "boss", "coder", "count words in first second third")
	waitClosed(t, gate.entered, "the turn of the first message")
	second := sendAs(t, st, "boss", "coder", "count words in x y")
	events.WaitFor(t, "the second message on the bus", func(ev store.Event) bool {
		return ev.Kind == store.EventDelivered && ev.MessageID == second
	})

	stopped := make(chan error, 1)
	go func() { stopped <- h.Stop() }()
	logs.WaitFor(t, "the intake stopped", func(msg string) bool { return msg == "mailbox stopped receiving" })
	third := sendAs(t, st, "boss", "coder", "count words in after the stop")
	close(gate.release)
	select {
	case err := <-stopped:
		require.NoError(t, err)
	case <-time.After(testkit.WaitLimit):
		t.Fatal("the host did not stop")
	}

	assert.Equal(t, map[string]string{first: "3", second: "2"}, replies(t, st, "boss"),
		"both messages taken before the stop are answered")
	assert.Equal(t, []string{third}, pendingIDs(t, st, "coder"), "the third waits in the inbox")
	assert.True(t, slices.Contains(logs.All(), "host stopping: no longer receiving; answering what was received"))

	again := w.start(cfg, host.Options{Registry: observedRegistry(events.Observe)})
	events.WaitFor(t, "the third message acknowledged", func(ev store.Event) bool {
		return ev.Kind == store.EventProcessed && ev.MessageID == third
	})
	require.NoError(t, again.Stop())
	assert.Equal(t, "3", replies(t, st, "boss")[third], "answered after the restart")
}

// sendAs delivers a message from → to and returns its id.
func sendAs(t *testing.T, st *fsstore.Store, from, to, text string) string {
	t.Helper()
	m := &envelope.Message{ID: envelope.NewID(), From: from, To: to, Type: envelope.TypeMessage,
		Timestamp: envelope.NewTime(time.Now().UTC()), TTL: 3, Trace: []string{from}}
	m.Content.Parts = []envelope.Part{envelope.TextPart(text)}
	require.NoError(t, st.Deliver(context.Background(), m))
	return m.ID
}

// replies returns the texts waiting in agent's inbox, by the id they reply to.
func replies(t *testing.T, st *fsstore.Store, agent string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, st.Pending(context.Background(), agent, func(_ string, m *envelope.Message, err error) bool {
		require.NoError(t, err)
		out[m.ReplyTo] = m.Text()
		return true
	}))
	return out
}

// pendingIDs lists the ids of the messages waiting in agent's inbox.
func pendingIDs(t *testing.T, st *fsstore.Store, agent string) []string {
	t.Helper()
	var ids []string
	require.NoError(t, st.Pending(context.Background(), agent, func(_ string, m *envelope.Message, err error) bool {
		require.NoError(t, err)
		ids = append(ids, m.ID)
		return true
	}))
	return ids
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(testkit.WaitLimit):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// observedRegistry is the default channel types, with the mailbox's store
// events reported to obs.
func observedRegistry(obs store.Observer) *channels.Registry {
	reg := channels.NewRegistry()
	reg.Register(feishustub.ChannelName, feishustub.Factory)
	reg.Register(mailbox.ChannelName, func(section config.Section, deps channels.Deps) (channels.Channel, error) {
		cfg, err := mailbox.DecodeConfig(section)
		if err != nil {
			return nil, err
		}
		return mailbox.New(cfg, deps.Bus, mailbox.Options{Logger: deps.Logger, Observer: obs})
	})
	return reg
}

// gatedProvider is the scripted provider, holding back the turn whose text
// contains hold: entered is closed when it begins, and it goes on when
// release is closed.
type gatedProvider struct {
	scripted.Provider
	hold             string
	entered, release chan struct{}
	once             sync.Once
}

func (g *gatedProvider) Chat(ctx context.Context, req agent.Request) (*agent.Response, error) {
	if last := req.Messages[len(req.Messages)-1]; strings.Contains(last.Content, g.hold) {
		g.once.Do(func() { close(g.entered) })
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.Provider.Chat(ctx, req)
}

// logSignals is a slog.Handler recording the messages logged.
type logSignals struct{ *testkit.Log[string] }

func (l logSignals) Enabled(context.Context, slog.Level) bool { return true }
func (l logSignals) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l logSignals) WithGroup(string) slog.Handler            { return l }
func (l logSignals) Handle(_ context.Context, r slog.Record) error {
	l.Add(r.Message)
	return nil
}
