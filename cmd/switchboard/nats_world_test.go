package main_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// natsWorld is a sandbox whose commands work on the mailbox on an
// embedded nats-server, configured by a file (backend nats, the server's
// URL) and not by --root.
type natsWorld struct {
	*sandbox
	url  string
	conf string // the config without an agentId
}

func newNATSWorld(t *testing.T) *natsWorld {
	t.Helper()
	w := &natsWorld{sandbox: newSandbox(t), url: startNATS(t)}
	w.conf = w.agentConf("", "")
	w.global = []string{"--config", w.conf}
	return w
}

// agentConf writes the config of agent id (none when empty) on the NATS
// mailbox, with more keys of channels.mailbox (JSON, may be empty).
func (w *natsWorld) agentConf(id, more string) string {
	w.t.Helper()
	keys := fmt.Sprintf(`"backend": "nats", "nats": {"url": %q}`, w.url)
	name := "nats.json"
	if id != "" {
		keys += fmt.Sprintf(`, "agentId": %q`, id)
		name = id + ".json"
	}
	if more != "" {
		keys += ", " + more
	}
	return w.writeConfig(name, `{"channels": {"mailbox": {`+keys+`}}}`)
}

// as returns the sandbox running the binary with config conf.
func (w *natsWorld) as(conf string) *sandbox {
	s := *w.sandbox
	s.global = []string{"--config", conf}
	return &s
}

// open opens the NATS mailbox in the test's process.
func (w *natsWorld) open() *store.Store {
	w.t.Helper()
	cfg := mailbox.DefaultConfig()
	cfg.Backend = natsstore.BackendName
	cfg.Stores = map[string]config.Section{cfg.Backend: {Path: natsstore.ConfigPath, Raw: map[string]any{"url": w.url}}}
	st, err := store.Open(cfg.Backend, cfg.StoreConfig())
	require.NoError(w.t, err)
	w.t.Cleanup(func() { st.Close() })
	return st
}

// jetStream connects to the server for looking at what it stores.
func (w *natsWorld) jetStream() jetstream.JetStream {
	w.t.Helper()
	nc, err := nats.Connect(w.url)
	require.NoError(w.t, err)
	w.t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(w.t, err)
	return js
}

// streams describes every stream on the server (the KV buckets are
// streams too): name, messages, bytes, first and last sequence, subjects
// and how many consumers it has. Two equal descriptions mean nothing was
// created (no stream, bucket or consumer), stored, removed or
// acknowledged (an acknowledged message leaves the work-queue stream).
func (w *natsWorld) streams() map[string]string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	out := map[string]string{}
	lister := w.jetStream().ListStreams(ctx)
	for info := range lister.Info() {
		st := info.State
		out[info.Config.Name] = fmt.Sprintf("%d msgs %d bytes seq %d-%d subjects %v consumers %d",
			st.Msgs, st.Bytes, st.FirstSeq, st.LastSeq, info.Config.Subjects, st.Consumers)
	}
	require.NoError(w.t, lister.Err())
	return out
}
