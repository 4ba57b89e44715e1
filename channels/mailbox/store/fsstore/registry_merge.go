package fsstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// How often a writer waiting for its card to be merged looks again: a
// short, growing, jittered backoff, woken early by a merge of its own
// process. A merge of a thousand cards takes tens of milliseconds.
const (
	mergePollMin = 500 * time.Microsecond
	mergePollMax = 100 * time.Millisecond
)

// registryMerges holds, for each store root of the process, the signal
// that a merge of this process ended, which wakes the process's waiting
// writers at once.
var registryMerges sync.Map // root → *signal

func mergeSignal(root string) *signal {
	v, _ := registryMerges.LoadOrStore(root, &signal{})
	return v.(*signal)
}

// signal wakes every goroutine waiting on it when it fires.
type signal struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel closed at the next fire.
func (g *signal) wait() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ch == nil {
		g.ch = make(chan struct{})
	}
	return g.ch
}

// fire wakes the waiters.
func (g *signal) fire() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ch != nil {
		close(g.ch)
		g.ch = nil
	}
}

// staleCheck lets a merge with nothing queued skip its rewrite: agent's
// card in the registry is no longer older than before.
type staleCheck struct {
	agent  string
	before time.Time
}

// mergeRequest is what the caller of a merge asks for beyond the queue.
type mergeRequest struct {
	// stale: renew every heartbeat, unless agent's card was renewed
	// meanwhile and nothing is queued.
	stale *staleCheck
	// agent and card: write this card of agent too, after the queue (the
	// caller holds the agent's card lock, and built card on its newest).
	agent string
	card  json.RawMessage
}

// renewMarker, in the queue folder, asks the next merge to renew every
// heartbeat: a heartbeat that found its copy old while a merge was under
// way leaves it there rather than wait.
const renewMarker = "_renew"

// awaitMerge waits until the queued card name is merged into the
// registry, merging the queue itself whenever _registry.lock is free
// (see registry_queue.go). It fails with the error of its own merge, or
// ctx's.
func (s *Store) awaitMerge(ctx context.Context, name string) error {
	wait := mergePollMin
	var timer *time.Timer
	for {
		woken := mergeSignal(s.root).wait()
		merged, err := s.tryMerge(mergeRequest{})
		if err != nil {
			return err
		}
		if merged || !s.queuedExists(name) {
			return nil // our merge took it (it was queued before), or another did
		}
		d := wait/2 + rand.N(wait/2+1)
		if timer == nil {
			timer = time.NewTimer(d)
			defer timer.Stop()
		} else {
			timer.Reset(d)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-woken:
		case <-timer.C:
		}
		wait = min(2*wait, mergePollMax)
	}
}

// tryMerge merges the queue into the registry if _registry.lock is free,
// and reports whether it took the lock. It never waits for the lock:
// whoever holds it merges what is queued.
func (s *Store) tryMerge(req mergeRequest) (bool, error) {
	plock := registryProcessLock(s.root)
	if !plock.tryLock() {
		return false, nil
	}
	defer plock.unlock()
	f, err := openLockFile(filepath.Join(s.root, registryLockName))
	if err != nil {
		return false, fmt.Errorf("lock registry: %w", err)
	}
	locked, err := tryLock(f)
	if err != nil || !locked {
		f.Close()
		if err != nil {
			return false, fmt.Errorf("lock registry %s: %w", f.Name(), err)
		}
		return false, nil
	}
	err = s.merge(req)
	releaseLock(f)
	mergeSignal(s.root).fire()
	return true, err
}

// merge writes every queued card (and req's) into the registry in one
// rewrite, and then removes the queued files it read. When a heartbeat
// asked for it (req.stale, or the renew marker) each agent's heartbeat is
// renewed from its heartbeat file where that is later. The caller holds
// _registry.lock. With nothing to write it writes nothing.
func (s *Store) merge(req mergeRequest) error {
	queue, err := s.listQueue()
	if err != nil {
		return err
	}
	marker := filepath.Join(s.queueDir(), renewMarker)
	_, merr := os.Lstat(marker)
	marked := merr == nil
	renew := req.stale != nil || marked
	if len(queue) == 0 && req.card == nil {
		if !renew {
			return nil
		}
		if stale := req.stale; !marked && stale != nil {
			if card, err := s.viewCard(stale.agent); err == nil && !card.LastHeartbeat.Before(stale.before) {
				return nil // renewed by the merge before us
			}
		}
	}
	cards := s.readQueue(queue)
	if req.card != nil {
		cards[req.agent] = req.card
	}
	path := s.registryPath()
	for attempt := 1; ; attempt++ {
		snap, entries, err := s.loadRegistryForUpdate(path)
		if err != nil {
			return err
		}
		for agent, raw := range cards {
			entries[agent] = raw
		}
		if renew {
			s.renewHeartbeats(entries)
		}
		err = s.commitRegistry(path, entries, snap.info, attempt < registryAttempts)
		if errors.Is(err, errRegistryChanged) {
			continue // a writer that takes no lock (nanobot) replaced it: merge into the new file
		}
		if err != nil {
			return err
		}
		break
	}
	if s.onMerged != nil {
		s.onMerged(len(cards))
	}
	if marked {
		_ = os.Remove(marker)
	}
	for _, q := range queue {
		if err := os.Remove(filepath.Join(s.queueDir(), q.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.opts.Logger.Warn("merged card not removed from the registry's queue", "file", q.name, "err", err)
		}
	}
	return nil
}

// readQueue reads the newest queued card of each agent. A card withdrawn
// meanwhile is left out; one that cannot be read or is not a JSON object
// is left out with a warning (and removed with the rest).
func (s *Store) readQueue(queue []queuedCard) map[string]json.RawMessage {
	newest := map[string]queuedCard{}
	for _, q := range queue {
		if cur, ok := newest[q.agent]; !ok || q.seq > cur.seq {
			newest[q.agent] = q
		}
	}
	cards := make(map[string]json.RawMessage, len(newest))
	for agent, q := range newest {
		data, err := s.readQueued(q.name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			s.opts.Logger.Warn("queued card not read; dropped", "file", q.name, "err", err)
			continue
		}
		if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
			s.opts.Logger.Warn("queued card is not a JSON object; dropped", "file", q.name)
			continue
		}
		cards[agent] = bytes.TrimSpace(data)
	}
	return cards
}
