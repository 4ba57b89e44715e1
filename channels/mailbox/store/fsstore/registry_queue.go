package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"

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
// card as <root>/_registry.queue/<agent>@<seq>.json, written beside and
// renamed in (when _registry.lock is free it writes the registry at once
// instead). Then it waits until the card is merged, that is until its
// file is gone (registry_merge.go): whoever finds _registry.lock free takes
// it, never waiting for it, and merges every queued card in one rewrite of
// the registry. Each rewrite serves every writer that queued before it
// began, so a writer waits for at most the rewrite under way and the next,
// however many others there are; nobody waits for the lock itself, so no
// one can be starved of it.

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
	dir := s.queueDir()
	tmp := filepath.Join(dir, "."+agentID+"."+uuid.NewString()+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return "", fmt.Errorf("queue card: %w", err)
	}
	_, err = f.Write(raw)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
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
