package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// fsBackend is a folder root.
type fsBackend struct {
	dir, root, watch string
	store            *fsstore.Store
	count            atomic.Int64 // renames of _registry.json seen
	how              string
	stopCount        func()
}

// newFSBackend makes a fresh root under dir; watch is the agents'
// SWITCHBOARD_WATCH ("" for the default).
func newFSBackend(dir, watch string) (*fsBackend, error) {
	b := &fsBackend{dir: dir, root: filepath.Join(dir, "mailboxes"), watch: watch}
	s, err := fsstore.Open(fsstore.Options{Root: b.root, NoIndex: true})
	if err != nil {
		return nil, err
	}
	b.store = s
	if err := b.countWrites(); err != nil {
		s.Close()
		return nil, err
	}
	return b, nil
}

func (b *fsBackend) describe() string {
	w := b.watch
	if w == "" {
		w = "shared"
	}
	return fmt.Sprintf("folder root %s (%s=%s, fsync on)", b.root, fsstore.WatchEnv, w)
}

func (b *fsBackend) agentArgs(i int) []string {
	return []string{"--root", b.root, "recv", agentID(i), "--json"}
}

func (b *fsBackend) env() []string {
	if b.watch == "" {
		return nil
	}
	return []string{fsstore.WatchEnv + "=" + b.watch}
}

func (b *fsBackend) registered(context.Context) (int, error) {
	data, err := os.ReadFile(filepath.Join(b.root, "_registry.json"))
	if err != nil {
		return 0, err
	}
	var cards map[string]json.RawMessage
	if err := json.Unmarshal(data, &cards); err != nil {
		return 0, fmt.Errorf("_registry.json does not parse: %w", err)
	}
	return len(cards), nil
}

// offline implements backend: the cards of _registry.json that say
// offline, and those whose newest update queued in _registry.queue says
// so (the offline mark of a stop the registry was too busy to take in
// time, which its next writer merges).
func (b *fsBackend) offline(context.Context) (offline, queued int, err error) {
	data, err := os.ReadFile(filepath.Join(b.root, "_registry.json"))
	if err != nil {
		return 0, 0, err
	}
	var cards map[string]envelope.Card
	if err := json.Unmarshal(data, &cards); err != nil {
		return 0, 0, fmt.Errorf("_registry.json does not parse: %w", err)
	}
	queue, err := os.ReadDir(filepath.Join(b.root, "_registry.queue"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, 0, err
	}
	newest := map[string]string{} // agent → its newest queued file; names sort by time
	for _, e := range queue {
		agent, _, ok := strings.Cut(e.Name(), "@")
		if ok && strings.HasSuffix(e.Name(), ".json") && e.Name() > newest[agent] {
			newest[agent] = e.Name()
		}
	}
	for agent, name := range newest {
		data, err := os.ReadFile(filepath.Join(b.root, "_registry.queue", name))
		if err != nil {
			return 0, 0, err
		}
		var card envelope.Card
		if json.Unmarshal(data, &card) == nil && card.Status == envelope.StatusOffline {
			if cards[agent].Status != envelope.StatusOffline {
				queued++
			}
			cards[agent] = card
		}
	}
	for _, c := range cards {
		if c.Status == envelope.StatusOffline {
			offline++
		}
	}
	return offline, queued, nil
}

// countWrites counts the renames of _registry.json: with an inotify
// instance of the bench's own when it can have one, else by looking at the
// file's inode every 5 ms (which misses writes closer together).
func (b *fsBackend) countWrites() error {
	path := filepath.Join(b.root, "_registry.json")
	w, err := fsnotify.NewWatcher()
	if err == nil {
		if err = w.Add(b.root); err != nil {
			w.Close()
		}
	}
	quit := make(chan struct{})
	b.stopCount = func() { close(quit) }
	if err == nil {
		b.how = "renames seen by inotify"
		go func() {
			defer w.Close()
			for {
				select {
				case <-quit:
					return
				case ev := <-w.Events:
					if ev.Name == path && ev.Has(fsnotify.Create) {
						b.count.Add(1)
					}
				case <-w.Errors:
				}
			}
		}()
		return nil
	}
	b.how = "inode changes seen every 5 ms (no inotify instance left for the bench: " + err.Error() + ")"
	go func() {
		var last os.FileInfo
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				fi, err := os.Lstat(path)
				if err == nil && (last == nil || !os.SameFile(fi, last)) {
					b.count.Add(1)
					last = fi
				}
			}
		}
	}()
	return nil
}

func (b *fsBackend) writes() (int, string) { return int(b.count.Load()), b.how }

func (b *fsBackend) send(ctx context.Context, to, id, text string) error {
	return b.store.Deliver(ctx, benchMessage(to, id, text))
}

// benchMessage is a message from the bench to agent to.
func benchMessage(to, id, text string) *envelope.Message {
	return &envelope.Message{ID: id, From: "bench", To: to, Timestamp: envelope.NewTime(time.Now()),
		Type: envelope.TypeMessage, TTL: 3, Trace: []string{"bench"},
		Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(text)}}}
}

// broadcastEnv lets a send reach every agent: maxFanout (32 by default)
// guards against a mistaken fan-out and limits.perAgent (a burst of 30)
// against a flood, and here the fan-out is the point.
var broadcastEnv = []string{"NANOBOT_CHANNELS__MAILBOX__MAX_FANOUT=100000",
	"NANOBOT_CHANNELS__MAILBOX__LIMITS__PER_AGENT__RATE=0"}

func (b *fsBackend) broadcastArgs(text string) []string {
	return []string{"--root", b.root, "send", "--from", "bench", "--to", "all", "--text", text}
}

func (b *fsBackend) rawLatency(ctx context.Context, self string, sends int, gap time.Duration) ([]time.Duration, string, error) {
	lat, err := rawFileLatency(ctx, self, filepath.Join(b.dir, "raw"), sends, gap)
	if err != nil && strings.Contains(err.Error(), "too many open files") {
		return nil, "", fmt.Errorf("no inotify instance left for the raw watcher: %w", err)
	}
	return lat, "a 500-byte file written, synced and linked into a folder another process watches with fsnotify", err
}

func (b *fsBackend) close() {
	b.stopCount()
	b.store.Close()
}
