package fsstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/backoff"
)

// registryLockName is the lock file every registry writer holds while it
// reads, changes and replaces _registry.json.
const registryLockName = "_registry.lock"

// lockRetry spaces the attempts to take a busy registry lock.
var lockRetry = backoff.Policy{Initial: 500 * time.Microsecond, Max: 20 * time.Millisecond}

// registryProcessLocks holds, for each store root of the process (by its real
// path, shared by every Store opened on it), the lock its registry writers
// take before they try the flock: only one goroutine of the process
// contends for the flock, the others wait for their turn without polling.
var registryProcessLocks sync.Map // root → *processLock

// registryProcessLock returns the process lock of root.
func registryProcessLock(root string) *processLock {
	q, _ := registryProcessLocks.LoadOrStore(root, &processLock{free: make(chan struct{})})
	return q.(*processLock)
}

// processLock is a mutex whose waiters also watch a context. Like
// sync.Mutex (and unlike a queue that hands the lock to the oldest
// waiter), a goroutine that comes along while it is free takes it, without
// waiting for a parked waiter to be woken: with 50 writers this measured
// more than twice as fast as handing the lock over in turn.
type processLock struct {
	mu   sync.Mutex
	held bool
	free chan struct{} // closed and replaced on every unlock
}

// lock takes l, waiting until it is free or ctx ends.
func (l *processLock) lock(ctx context.Context) error {
	for {
		l.mu.Lock()
		if !l.held {
			l.held = true
			l.mu.Unlock()
			return nil
		}
		free := l.free
		l.mu.Unlock()
		select {
		case <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// tryLock takes l if it is free and reports whether it did.
func (l *processLock) tryLock() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held {
		return false
	}
	l.held = true
	return true
}

// unlock releases l and wakes its waiters.
func (l *processLock) unlock() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held = false
	close(l.free)
	l.free = make(chan struct{})
}

// lockRegistry takes the exclusive flock on <root>/_registry.lock and
// returns the function that releases it. The lock file is created 0600 and
// never followed through a symlink.
//
// Writers of this process first take the root's process lock
// (registryProcessLock), waiting without polling and watching ctx; the one
// holding it then takes the flock, which only other processes can hold
// against it. flock(2) cannot be
// interrupted by a context: a blocking flock in a goroutine would outlive
// a cancelled caller and could take the lock after the caller gave up,
// leaving a thread blocked and the lock to be released by someone else. So
// this is the one place in the store that polls: it tries LOCK_NB and,
// while another process holds the lock (a few milliseconds per update),
// sleeps a short, growing, jittered backoff that also watches ctx.
func (s *Store) lockRegistry(ctx context.Context) (unlock func(), err error) {
	plock := registryProcessLock(s.root)
	if err := plock.lock(ctx); err != nil {
		return nil, fmt.Errorf("lock registry: %w", err)
	}
	defer func() {
		if err != nil {
			plock.unlock()
		}
	}()
	f, err := openLockFile(filepath.Join(s.root, registryLockName))
	if err != nil {
		return nil, fmt.Errorf("lock registry: %w", err)
	}
	if err := pollLock(ctx, f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock registry: %w", err)
	}
	return func() {
		// Closing the descriptor releases the flock; then the next
		// writer of this process may try it.
		f.Close()
		plock.unlock()
	}, nil
}

// openLockFile opens (creating it 0600) the lock file at path, never
// through a symlink.
func openLockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s is a symlink; refusing to follow it", path)
	}
	return f, err
}

// pollLock takes the exclusive flock on f, trying it without waiting and,
// while another open file holds it, sleeping a short, growing, jittered
// backoff that also watches ctx. flock(2) cannot be interrupted by a
// context: a blocking flock in a goroutine would outlive a cancelled
// caller and could take the lock after the caller gave up.
func pollLock(ctx context.Context, f *os.File) error {
	waits := lockRetry.Start()
	for {
		locked, err := tryLock(f)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name(), err)
		}
		if locked {
			return nil
		}
		// The jitter keeps waiting writers from retrying in lock step.
		if err := backoff.Sleep(ctx, clock.Real, waits.Next()); err != nil {
			return err
		}
	}
}

// KeepCorruptRegistryCopies is how many copies of a corrupt registry
// (_registry.json.corrupt-<unix>[-<n>]) the store keeps: each new copy
// removes the older ones beyond it. Beside nanobot's unlocked writer the
// registry can be torn many times a minute; the newest copies say enough.
const KeepCorruptRegistryCopies = 3

// corruptPrefix starts the name of each copy of a corrupt registry.
const corruptPrefix = registryName + ".corrupt-"

// copyName is a copy of a corrupt registry with the parts of its name.
type copyName struct {
	name string
	unix int64 // the second it was made
	n    int   // its counter within that second (1 for none)
	mod  time.Time
}

// CorruptRegistryCopies returns the names of the copies of a corrupt
// registry in root, newest first: by modification time, then by the
// second and the counter in the name (a counter freed by a removal is
// used again, so it alone does not say which is newer). Other names are
// not listed.
func CorruptRegistryCopies(root string) ([]string, error) {
	copies, err := corruptCopies(root)
	names := make([]string, len(copies))
	for i, c := range copies {
		names[i] = c.name
	}
	return names, err
}

// PruneCorruptRegistryCopies removes all but the keep newest copies of a
// corrupt registry in root and returns how many it removed. A copy
// removed meanwhile by another process counts as removed.
func PruneCorruptRegistryCopies(root string, keep int) (int, error) {
	copies, err := corruptCopies(root)
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, c := range copies[min(max(keep, 0), len(copies)):] {
		if err := os.Remove(filepath.Join(root, c.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// corruptCopies lists the copies in root, newest first.
func corruptCopies(root string) ([]copyName, error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var copies []copyName
	for _, e := range ents {
		c, ok := parseCopyName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if fi, err := e.Info(); err == nil {
			c.mod = fi.ModTime()
			copies = append(copies, c)
		}
	}
	slices.SortFunc(copies, func(a, b copyName) int {
		return cmp.Or(b.mod.Compare(a.mod), cmp.Compare(b.unix, a.unix), cmp.Compare(b.n, a.n))
	})
	return copies, nil
}

// parseCopyName reads "_registry.json.corrupt-<unix>[-<n>]".
func parseCopyName(name string) (copyName, bool) {
	rest, ok := strings.CutPrefix(name, corruptPrefix)
	if !ok {
		return copyName{}, false
	}
	sec, counter, hasCounter := strings.Cut(rest, "-")
	c := copyName{name: name, n: 1}
	var err error
	if c.unix, err = strconv.ParseInt(sec, 10, 64); err != nil {
		return copyName{}, false
	}
	if hasCounter {
		if c.n, err = strconv.Atoi(counter); err != nil {
			return copyName{}, false
		}
	}
	return c, true
}

// salvagedEntries is what a reader uses of a registry that does not parse:
// the entries that can still be read, and a card for each agent that has a
// heartbeat file and no entry left (what its running agent wrote last),
// so that a corrupt registry never hides the live agents: sends and
// listings go on, with a warning, until a writer (or doctor --fix)
// rewrites the file.
func (s *Store) salvagedEntries(data []byte, perr error) map[string]json.RawMessage {
	entries := salvageRegistry(data)
	for id, card := range s.heartbeatCards() {
		if _, ok := entries[id]; ok {
			continue
		}
		if raw, err := json.Marshal(card); err == nil {
			entries[id] = raw
		}
	}
	s.opts.Logger.Warn("mailbox registry is corrupt; using the cards that can be read and the agents' heartbeats (switchboard doctor --fix rewrites it)",
		"file", s.registryPath(), "err", perr, "cards", len(entries))
	return entries
}

// heartbeatCards returns a card for each agent with a heartbeat file: its
// id, the time of its last heartbeat, idle. The agent's next beat writes
// its whole card back.
func (s *Store) heartbeatCards() map[string]envelope.Card {
	out := map[string]envelope.Card{}
	ids, err := s.Agents()
	if err != nil {
		return out
	}
	for _, id := range ids {
		t, ok := s.readHeartbeat(id)
		if !ok {
			continue
		}
		hb := envelope.NewTime(t)
		out[id] = envelope.Card{AgentID: id, Status: envelope.StatusIdle, Capabilities: []string{},
			AllowFrom: []string{}, CurrentTasks: []string{}, RegisteredAt: hb, LastHeartbeat: hb}
	}
	return out
}

// RepairReport says what RepairRegistry did.
type RepairReport struct {
	// Copy is the copy of the corrupt file kept ("" when it was not
	// corrupt and nothing was done).
	Copy string
	// Salvaged are the agents whose entries could still be read; Rebuilt
	// those whose cards were made again from their heartbeat files.
	Salvaged, Rebuilt []string
}

// RepairRegistry rewrites a registry that does not parse, under the
// registry's lock: it keeps a copy of the corrupt file (as a writer
// would), and writes the entries that can still be read plus a card for
// each agent with a heartbeat file (the live agents, which write their
// whole card back at their next beat). A registry that parses is left as
// it is.
func (s *Store) RepairRegistry(ctx context.Context) (RepairReport, error) {
	var rep RepairReport
	if err := s.checkOpen(); err != nil {
		return rep, fmt.Errorf("repair registry: %w", err)
	}
	unlock, err := s.lockRegistry(ctx)
	if err != nil {
		return rep, fmt.Errorf("repair registry: %w", err)
	}
	defer unlock()
	path := s.registryPath()
	snap, err := readRegistryFile(path)
	if err != nil {
		return rep, fmt.Errorf("repair registry: %w", err)
	}
	if _, perr := parseRegistry(snap.data); perr == nil {
		return rep, nil
	}
	entries := salvageRegistry(snap.data)
	for id := range entries {
		rep.Salvaged = append(rep.Salvaged, id)
	}
	for id, card := range s.heartbeatCards() {
		if _, ok := entries[id]; ok {
			continue
		}
		raw, err := json.Marshal(card)
		if err != nil {
			return rep, err
		}
		entries[id] = raw
		rep.Rebuilt = append(rep.Rebuilt, id)
	}
	slices.Sort(rep.Salvaged)
	slices.Sort(rep.Rebuilt)
	if rep.Copy, err = backupCorruptRegistry(s.root, snap.data, s.opts.Now(), !s.opts.NoSync); err != nil {
		return rep, fmt.Errorf("repair registry: a copy of the corrupt file could not be saved, so it is kept as it is: %w", err)
	}
	if err := s.commitRegistry(path, entries, snap.info, false); err != nil && !errors.Is(err, errRegistryChanged) {
		return rep, fmt.Errorf("repair registry: %w", err)
	}
	return rep, nil
}

var _ driver.Registry = (*Store)(nil)
