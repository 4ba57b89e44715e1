package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
)

// natsBackend is one NATS server, or a cluster of three with every stream
// and bucket replicated three times, embedded in the bench.
type natsBackend struct {
	dir      string
	servers  []*server.Server
	urls     string // the client URLs, comma-separated
	replicas int
	config   string // the agents' config file
	nc       *nats.Conn
	store    *natsstore.Store // the bench's own, to send and to count
	js       jetstream.JetStream
	counted  atomic.Int64 // requests the bench's connection saw (see requests)
	kindsMu  sync.Mutex
	kinds    map[string]int // the same by kind (see requestKind)
}

// newNATSBackend starts nodes servers (one, or a cluster of three) and
// creates the mailbox's stream and buckets, as an administrator would
// before the agents start.
func newNATSBackend(ctx context.Context, dir string, nodes int) (backend, error) {
	b := &natsBackend{dir: dir, replicas: nodes}
	if err := b.startServers(nodes); err != nil {
		b.close()
		return nil, err
	}
	cfg := natsstore.DefaultConfig()
	cfg.URL, cfg.Replicas = b.urls, nodes
	var err error
	if b.nc, err = nats.Connect(b.urls, nats.Name("bench")); err != nil {
		b.close()
		return nil, err
	}
	// A cluster elects its JetStream leader after it formed: retry until
	// the stream and buckets can be made.
	deadline := time.Now().Add(time.Minute)
	for {
		opts := cfg.Options(b.nc)
		b.store, err = natsstore.Open(ctx, opts)
		if err == nil || time.Now().After(deadline) {
			break
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			break
		}
	}
	if err != nil {
		b.close()
		return nil, fmt.Errorf("mailbox stream and buckets: %w", err)
	}
	if b.js, err = jetstream.New(b.nc); err != nil {
		b.close()
		return nil, err
	}
	if err := b.countRequests(); err != nil {
		b.close()
		return nil, err
	}
	return b, b.writeConfig()
}

// startServers starts the servers and waits until they take clients.
func (b *natsBackend) startServers(nodes int) error {
	var routes []string
	var clusterPorts []int
	for range nodes {
		p, err := freePort()
		if err != nil {
			return err
		}
		clusterPorts = append(clusterPorts, p)
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", p))
	}
	var urls []string
	for i := range nodes {
		opts := &server.Options{
			ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1", Port: server.RANDOM_PORT,
			JetStream: true, StoreDir: filepath.Join(b.dir, fmt.Sprintf("n%d", i+1)),
			JetStreamMaxStore: 1 << 40, NoLog: true, NoSigs: true,
		}
		if nodes > 1 {
			opts.Cluster = server.ClusterOpts{Name: "bench", Host: "127.0.0.1", Port: clusterPorts[i]}
			opts.Routes = server.RoutesFromStr(strings.Join(routes, ","))
		}
		srv, err := server.NewServer(opts)
		if err != nil {
			return err
		}
		go srv.Start()
		b.servers = append(b.servers, srv)
	}
	for _, srv := range b.servers {
		if !srv.ReadyForConnections(30 * time.Second) {
			return errors.New("nats-server did not start within 30s")
		}
		urls = append(urls, srv.ClientURL())
	}
	b.urls = strings.Join(urls, ",")
	return nil
}

// freePort returns a TCP port free at the moment.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// writeConfig writes the agents' config: the mailbox on these servers.
func (b *natsBackend) writeConfig() error {
	cfg := map[string]any{"channels": map[string]any{"mailbox": map[string]any{
		"backend": "nats",
		"nats":    map[string]any{"url": b.urls, "replicas": b.replicas},
	}}}
	data, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	b.config = filepath.Join(b.dir, "config.json")
	return os.WriteFile(b.config, data, 0o600)
}

func (b *natsBackend) describe() string {
	if len(b.servers) == 1 {
		return "one NATS server embedded in the bench (JetStream, file storage)"
	}
	return fmt.Sprintf("a cluster of %d NATS servers embedded in the bench (JetStream, file storage, every stream and bucket with %d replicas)",
		len(b.servers), b.replicas)
}

func (b *natsBackend) agentArgs(i int) []string {
	return []string{"--config", b.config, "recv", agentID(i), "--json"}
}

func (b *natsBackend) env() []string { return nil }

func (b *natsBackend) registered(ctx context.Context) (int, error) {
	cards, err := b.cards(ctx)
	return len(cards), err
}

// offline implements backend: the cards that say offline (NATS queues no
// card updates).
func (b *natsBackend) offline(ctx context.Context) (offline, queued int, err error) {
	cards, err := b.cards(ctx)
	for _, c := range cards {
		if c.Status == envelope.StatusOffline {
			offline++
		}
	}
	return offline, 0, err
}

// cards reads the registry, asking again for up to a minute while the
// servers do not answer in time: just after a thousand agents started, a
// cluster can take longer than a request's 5 s to make the watcher's
// consumer, and a figure of the bench is not lost to that.
func (b *natsBackend) cards(ctx context.Context) ([]envelope.Card, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		cards, err := b.store.Cards(ctx)
		if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil || time.Now().After(deadline) {
			return cards, err
		}
	}
}

// countRequests subscribes to the JetStream API's subjects and to the
// buckets' subjects, so that requests counts what the agents ask of the
// servers.
func (b *natsBackend) countRequests() error {
	b.kinds = map[string]int{}
	for _, subject := range []string{"$JS.API.>", "$KV.>"} {
		if _, err := b.nc.Subscribe(subject, func(m *nats.Msg) {
			b.counted.Add(1)
			k := requestKind(m.Subject)
			b.kindsMu.Lock()
			b.kinds[k]++
			b.kindsMu.Unlock()
		}); err != nil {
			return err
		}
	}
	return b.nc.Flush()
}

// requests implements requestCounter.
func (b *natsBackend) requests() (int64, map[string]int, string) {
	_ = b.nc.Flush()
	b.kindsMu.Lock()
	defer b.kindsMu.Unlock()
	return b.counted.Load(), maps.Clone(b.kinds), "JetStream API requests and KV writes, the bench's own included"
}

// requestKind names what a request on subject asks: the API call and its
// stream ("STREAM.INFO KV_mailbox-state"), or the bucket a KV write goes
// to ("KV put mailbox-locks").
func requestKind(subject string) string {
	t := strings.Split(subject, ".")
	switch {
	case len(t) >= 3 && t[0] == "$KV":
		return "KV write " + t[1]
	case len(t) >= 5 && t[2] == "DIRECT":
		return "DIRECT.GET " + t[4]
	case len(t) >= 5 && t[2] == "CONSUMER" && t[3] == "MSG":
		return "CONSUMER.MSG.NEXT " + t[5]
	case len(t) >= 5:
		return t[2] + "." + t[3] + " " + t[4]
	}
	return subject
}

// writes counts the puts into the cards' bucket: the last sequence of its
// stream.
func (b *natsBackend) writes() (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := b.js.Stream(ctx, "KV_"+natsstore.DefaultConfig().RegistryBucket)
	if err != nil {
		return -1, err.Error()
	}
	return int(s.CachedInfo().State.LastSeq), "puts into the cards' bucket"
}

func (b *natsBackend) send(ctx context.Context, to, id, text string) error {
	return b.store.Deliver(ctx, benchMessage(to, id, text))
}

func (b *natsBackend) broadcastArgs(text string) []string {
	return []string{"--config", b.config, "send", "--from", "bench", "--to", "all", "--text", text}
}

// rawLatency publishes with plain nats.go to a subscription of another
// process, one message at a time.
func (b *natsBackend) rawLatency(ctx context.Context, self string, sends int, gap time.Duration) ([]time.Duration, string, error) {
	const subject = "bench.raw"
	c, err := startRawChild(ctx, self, "nats", b.urls, subject)
	if err != nil {
		return nil, "", err
	}
	defer c.stop()
	var out []time.Duration
	for i := range sends {
		tag := fmt.Sprintf("%06d", i)
		payload := tag + strings.Repeat("x", 500-len(tag))
		begin := time.Now()
		if err := b.nc.Publish(subject, []byte(payload)); err != nil {
			return nil, "", err
		}
		if err := b.nc.Flush(); err != nil {
			return nil, "", err
		}
		at, err := c.await(ctx, payload)
		if err != nil {
			return nil, "", err
		}
		out = append(out, at.Sub(begin))
		if err := sleep(ctx, gap); err != nil {
			return nil, "", err
		}
	}
	return out, "a 500-byte publish with plain nats.go to another process's subscription, same servers", nil
}

func (b *natsBackend) close() {
	if b.store != nil {
		b.store.Close()
	}
	if b.nc != nil {
		b.nc.Close()
	}
	for _, srv := range b.servers {
		srv.Shutdown()
	}
	for _, srv := range b.servers {
		srv.WaitForShutdown()
	}
}
