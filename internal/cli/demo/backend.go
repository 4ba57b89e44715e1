package demo

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/config"
)

// The demo's mailbox backends (--backend).
const (
	demoFS   = "fs"
	demoNATS = "nats"
	// demoNATSPath is where the nats backend's settings sit in the config.
	demoNATSPath = "channels.mailbox.nats"
)

// demoBackend is where the demo's mailbox lives: a folder (fs), or a NATS
// server with JetStream, started by the demo (switchboard-natsd) or named by
// --nats-url.
type demoBackend struct {
	kind string
	root string // fs: the mailbox root
	url  string // nats: the server
	stop func() // nats: stops the demo's server (nil with --nats-url)
	// since is when the demo began: on a server named by --nats-url, the
	// messages stamped before it are another run's.
	since time.Time
}

// openDemoBackend prepares the backend f asks for: with NATS it starts the
// demo's server in the demo's folder, unless --nats-url names one, which
// must answer before any agent starts. ctx ends the wait for the server
// (SIGINT).
func openDemoBackend(ctx context.Context, f demoFlags, layout demoLayout) (*demoBackend, error) {
	if f.backend != demoNATS {
		return &demoBackend{kind: demoFS, root: layout.root}, nil
	}
	b := &demoBackend{kind: demoNATS, url: f.natsURL, since: time.Now().Truncate(time.Millisecond)}
	if b.url != "" {
		if err := pingNATS(b.url); err != nil {
			return nil, fmt.Errorf("connect to NATS at %s: %w", b.url, err)
		}
		return b, nil
	}
	url, stop, err := startNATS(ctx, filepath.Join(layout.dir, "nats"))
	if err != nil {
		return nil, err
	}
	b.stop, b.url = stop, url
	return b, nil
}

// open opens the backend, starts the trace receiver with --observe and
// writes the configs; on error it leaves nothing running.
func (d *demoRun) open(ctx context.Context, f demoFlags) error {
	be, err := openDemoBackend(ctx, f, d.layout)
	if err != nil {
		return err
	}
	if f.observe {
		if d.obs, err = startDemoObserve(); err != nil {
			be.close()
			return err
		}
	}
	if err := d.layout.write(be, d.obs.endpoint()); err != nil {
		d.obs.close()
		be.close()
		return err
	}
	d.be = be
	return nil
}

// mailboxKeys are the keys of channels.mailbox that put an agent on this
// backend.
func (b *demoBackend) mailboxKeys() map[string]any {
	if b.kind == demoNATS {
		return map[string]any{"backend": demoNATS, "nats": map[string]any{"url": b.url}}
	}
	return map[string]any{"mailboxesRoot": b.root}
}

// where names the backend for a person.
func (b *demoBackend) where() string {
	if b.kind == demoNATS {
		return "NATS JetStream at " + b.url
	}
	return b.root
}

// open opens the store the agents use, through the mailbox's own
// backend registry, as any agent configured with mailboxKeys would.
func (b *demoBackend) open() (*store.Store, error) {
	cfg := mailbox.DefaultConfig()
	cfg.AgentID = "demo"
	cfg.MailboxesRoot = b.root
	if b.kind == demoNATS {
		cfg.Backend = demoNATS
		cfg.Stores = map[string]config.Section{demoNATS: {Path: demoNATSPath, Raw: map[string]any{"url": b.url}}}
	}
	return store.Open(cfg.Backend, cfg.StoreConfig())
}

// mail returns the messages between the agents, as the store lists them
// (store.Store.Browse): the filesystem keeps every message, NATS a copy of
// each in its history stream, priority messages included. On NATS the
// messages stamped before the demo began are left out.
func (b *demoBackend) mail(ctx context.Context) ([]demoLine, error) {
	st, err := b.open()
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if !st.Has(store.CanBrowse) {
		return nil, errors.New("the store cannot list its messages")
	}
	lines, err := browseLines(ctx, st)
	if err != nil || b.since.IsZero() {
		return lines, err
	}
	return slices.DeleteFunc(lines, func(l demoLine) bool { return l.at.Before(b.since) }), nil
}

// close shuts the demo's server down (after the agents stopped).
func (b *demoBackend) close() {
	if b.stop != nil {
		b.stop()
	}
}

// stored names what of the mailbox the demo's folder holds ("" when the
// store is elsewhere).
func (b *demoBackend) stored() string {
	switch {
	case b.kind == demoFS:
		return "mailboxes"
	case b.stop != nil:
		return "NATS store"
	}
	return ""
}

// describe is the line the demo prints about the backend, "" for fs.
func (b *demoBackend) describe(dir string) string {
	switch {
	case b.kind != demoNATS:
		return ""
	case b.stop != nil:
		return fmt.Sprintf("nats-server (switchboard-natsd, JetStream in %s) listening at %s", filepath.Join(dir, "nats"), b.url)
	}
	return "NATS server at " + b.url + " (--nats-url)"
}
