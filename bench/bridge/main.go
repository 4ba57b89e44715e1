package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/bridge"
)

func main() {
	n := flag.Int("n", 500, "messages timed one at a time, per path")
	burst := flag.Int("burst", 2000, "messages sent at once for the throughput, per path")
	root := flag.String("root", os.TempDir(), "folder for the bench's stores (a fresh one under it, removed at the end)")
	fsync := flag.Bool("fsync", false, "folder stores sync each delivery (channels.mailbox.fsync)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *n, *burst, *root, *fsync); err != nil {
		fmt.Fprintln(os.Stderr, "bench/bridge:", err)
		os.Exit(1)
	}
}

// world is the stores and bridges of one run.
type world struct {
	dir             string
	srv             *server.Server
	folder, folder2 *store.Store
	nats            *store.Store // the agents' connection
	fsync           bool
}

func run(ctx context.Context, n, burst int, root string, fsync bool) error {
	dir, err := os.MkdirTemp(root, "bench-bridge-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts := server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: filepath.Join(dir, "nats"), NoLog: true, NoSigs: true}
	srv, err := server.NewServer(&opts)
	if err != nil {
		return err
	}
	go srv.Start()
	defer srv.Shutdown()
	if !srv.ReadyForConnections(20 * time.Second) {
		return fmt.Errorf("nats-server not ready")
	}
	w := &world{dir: dir, srv: srv, fsync: fsync}
	if w.folder, err = w.openFolder("one"); err != nil {
		return err
	}
	defer w.folder.Close()
	if w.folder2, err = w.openFolder("two"); err != nil {
		return err
	}
	defer w.folder2.Close()
	if w.nats, err = w.openNATS(); err != nil {
		return err
	}
	defer w.nats.Close()
	// Two bridges, each with its own connection: folder one - NATS - folder two.
	for i, f := range []*store.Store{w.folder, w.folder2} {
		ns, err := w.openNATS()
		if err != nil {
			return err
		}
		defer ns.Close()
		b, err := bridge.New(bridge.Config{ID: fmt.Sprintf("bench-%d", i+1), Interval: 100 * time.Millisecond,
			A: bridge.Side{Name: "folder", Store: f}, B: bridge.Side{Name: "nats", Store: ns}})
		if err != nil {
			return err
		}
		bctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { b.Run(bctx); close(done) }()
		defer func() { cancel(); <-done }()
	}
	paths, err := w.paths(ctx)
	if err != nil {
		return err
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("bench/bridge: %d messages one at a time, %d at once; fsync %v; %d CPUs; load average before: %s\n",
		n, burst, fsync, runtime.NumCPU(), firstField(string(load)))
	fmt.Printf("%-34s %10s %10s %10s %12s\n", "path", "p50", "p99", "max", "msgs/s")
	for _, p := range paths {
		lat, err := p.latency(ctx, n)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		rate, err := p.throughput(ctx, burst)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		fmt.Printf("%-34s %10s %10s %10s %12.0f\n", p.name, ms(lat.p50), ms(lat.p99), ms(lat.max), rate)
	}
	if load, err = os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Printf("load average after: %s\n", firstField(string(load)))
	}
	return nil
}

func (w *world) openFolder(name string) (*store.Store, error) {
	st, err := fsstore.Open(fsstore.Options{Root: filepath.Join(w.dir, name), NoSync: !w.fsync, MaxMessageBytes: 1 << 20,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	return store.New(st, nil), nil
}

func (w *world) openNATS() (*store.Store, error) {
	return store.Open(natsstore.BackendName, store.Config{MaxMessageBytes: 1 << 20, OfflineAfter: 30 * time.Second,
		Section: config.Section{Path: natsstore.ConfigPath, Raw: map[string]any{"url": w.srv.ClientURL()}}})
}

func firstField(s string) string {
	for i, c := range s {
		if c == ' ' {
			return s[:i]
		}
	}
	return s
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
