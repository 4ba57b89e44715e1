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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// The registry's queue: how many processes update _registry.json at once
// without waiting for one another's rewrites.
//
// A writer (UpdateCard) does not wait for the registry. Under its agent's
// card lock (<root>/_registry.locks/<agent>.lock, an flock that only the
// writers of that one card take, for the microseconds of a read and a
// write) it reads the card as it stands (its newest queued update,
// else the registry's entry), applies the update and queues the whole new
// card as <root>/_registry.queue/<agent>@<seq>.json, written whole before
// it gets its name (createNew; when _registry.lock is free it writes the
// registry at once instead). Then it waits until the card is merged, that
// is until its file is gone (registry_queue.go): whoever finds
// _registry.lock free takes it, never waiting for it, and merges every
// queued card in one rewrite of the registry. Each rewrite serves every
// writer that queued before it began, so a writer waits for at most the
// rewrite under way and the next, however many others there are; nobody
// waits for the lock itself, so no one can be starved of it.

// Names in the root and in the queue folder.
const (
	// registryQueueDir holds the card updates waiting to be merged.
	registryQueueDir = "_registry.queue"
	// cardLockDir holds each agent's card lock, <agent>.lock.
	cardLockDir = "_registry.locks"
	// queuedSuffix ends a queued card's name, <agent>@<seq>.json.
	queuedSuffix = ".json"
	// cardLockSuffix ends an agent's card lock, <agent>.lock.
	cardLockSuffix = ".lock"
	// seqDigits is the width of a queued card's sequence number (Unix
	// nanoseconds, zero-padded so that names sort by it).
	seqDigits = 20
)

// queuedCard is one queued card update.
type queuedCard struct {
	agent string
	seq   uint64
	name  string // the file's name in the queue folder
}

func (s *Store) queueDir() string { return filepath.Join(s.root, registryQueueDir) }

// ensureQueueDir creates the queue folder (0700) or checks the one there.
func (s *Store) ensureQueueDir() error { return ensureDir(s.queueDir()) }

// parseQueued reads a queue folder entry's name; ok is false for anything
// but a queued card (temp files, the renew marker).
func parseQueued(name string) (queuedCard, bool) {
	base, found := strings.CutSuffix(name, queuedSuffix)
	at := strings.LastIndexByte(base, '@')
	if !found || at < 0 || len(base)-at-1 != seqDigits {
		return queuedCard{}, false
	}
	seq, err := strconv.ParseUint(base[at+1:], 10, 64)
	agent := base[:at]
	if err != nil || envelope.ValidateAgentID(agent) != nil {
		return queuedCard{}, false
	}
	return queuedCard{agent: agent, seq: seq, name: name}, true
}

// listQueue returns the queued cards, in no particular order. A missing
// queue folder is an empty queue.
func (s *Store) listQueue() ([]queuedCard, error) {
	var out []queuedCard
	dir := s.queueDir()
	err := checkDir(dir)
	if err == nil {
		err = eachEntry(dir, func(e fs.DirEntry) {
			if q, ok := parseQueued(e.Name()); ok && e.Type().IsRegular() {
				out = append(out, q)
			}
		})
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the registry's queue: %w", err)
	}
	return out, nil
}

// newestQueued returns agentID's newest queued card, if any.
func newestQueued(queue []queuedCard, agentID string) (queuedCard, bool) {
	var best queuedCard
	found := false
	for _, q := range queue {
		if q.agent == agentID && (!found || q.seq > best.seq) {
			best, found = q, true
		}
	}
	return best, found
}

// lockCard takes agentID's card lock, waiting (without blocking a thread)
// until it is free or ctx ends. Only writers of that card take it, each
// for a read and a write of a small file.
func (s *Store) lockCard(ctx context.Context, agentID string) (unlock func(), err error) {
	if err := s.ensureQueueDir(); err != nil {
		return nil, err
	}
	locks := filepath.Join(s.root, cardLockDir)
	if err := ensureDir(locks); err != nil {
		return nil, err
	}
	f, err := openLockFile(filepath.Join(locks, agentID+cardLockSuffix))
	if err != nil {
		return nil, fmt.Errorf("lock card: %w", err)
	}
	if err := pollLock(ctx, f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock card: %w", err)
	}
	return func() { _ = releaseLock(f) }, nil
}

// enqueueCard queues raw as agentID's card, after every card of the agent
// already queued (the caller holds the agent's card lock), and returns the
// queued file's name.
func (s *Store) enqueueCard(queue []queuedCard, agentID string, raw []byte) (string, error) {
	seq := uint64(max(time.Now().UnixNano(), 0))
	if last, ok := newestQueued(queue, agentID); ok && last.seq >= seq {
		seq = last.seq + 1
	}
	name := fmt.Sprintf("%s@%0*d%s", agentID, seqDigits, seq, queuedSuffix)
	if err := createNew(s.queueDir(), name, raw); err != nil {
		return "", fmt.Errorf("queue card: %w", err)
	}
	return name, nil
}

// readQueued reads a queued card; a file merged (removed) meanwhile is an
// error wrapping fs.ErrNotExist.
func (s *Store) readQueued(name string) ([]byte, error) {
	f, err := os.OpenFile(filepath.Join(s.queueDir(), name), os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("queued card %s is not a regular file", name)
	}
	return readAllCapped(f, maxQueuedCardBytes)
}

// maxQueuedCardBytes caps a queued card when it is read.
const maxQueuedCardBytes = 1 << 20

// queuedExists reports whether a queued card is still waiting.
func (s *Store) queuedExists(name string) bool {
	_, err := os.Lstat(filepath.Join(s.queueDir(), name))
	return !errors.Is(err, fs.ErrNotExist)
}

// withdraw removes a queued card that its writer gave up waiting for. A
// merge that read it already may still write it.
func (s *Store) withdraw(name string) {
	_ = os.Remove(filepath.Join(s.queueDir(), name))
}

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
	// queuedOnly: write only what is queued. The renew marker is left
	// for the next merge: the merge just before this one renewed every
	// heartbeat already, and renewing again at once would double the
	// idle rewrites of a busy root.
	queuedOnly bool
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
// whoever holds it merges what is queued, and then what was queued while
// it merged (a merge starved of CPU on a loaded machine can take seconds,
// while every other writer waits or gives up). The second merge takes
// only queued cards (a renewal of the heartbeats asked meanwhile waits
// for the next merge), and with nothing queued writes nothing.
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
	if err == nil {
		// The cards queued while it ran: their writers could not take the
		// lock, and may have given up waiting meanwhile (a stop's last
		// word, left queued). Once more, while the lock is held. Its
		// error is not the caller's, whose card is written: the writers
		// of those cards still waiting meet it in their own merge.
		if err := s.merge(mergeRequest{queuedOnly: true}); err != nil {
			s.opts.Logger.Warn("the cards queued during a merge of the registry were left for the next", "err", err)
		}
	}
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
	marked := false
	if !req.queuedOnly {
		_, merr := os.Lstat(marker)
		marked = merr == nil
	}
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
		snap, err := readRegistryFile(path)
		if err != nil {
			return err
		}
		data, spliced := []byte(nil), false
		if !renew {
			data, spliced = spliceRegistry(snap.data, cards)
		}
		if !spliced {
			entries, err := s.entriesForUpdate(path, snap)
			if err != nil {
				return err
			}
			for agent, raw := range cards {
				entries[agent] = raw
			}
			if renew {
				s.renewHeartbeats(entries)
			}
			if data, err = encodeRegistry(entries); err != nil {
				return err
			}
		}
		err = s.commitRegistryData(path, data, snap.info, attempt < registryAttempts)
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
