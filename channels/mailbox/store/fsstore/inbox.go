package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// scanBatch is how many pending names one scan of inbox/ keeps at least
// (the smallest ones); the folder is scanned again when they are used up.
// With more waiting, a scan keeps a quarter of what it found, up to
// maxScanBatch (see keepFor), so a backlog of N costs about four scans
// of the folder rather than N/scanBatch.
const scanBatch = 1024

// maxScanBatch bounds the names a scan keeps (twice this many, with the
// previous scan's), and so the memory of a very large backlog.
const maxScanBatch = 16384

// keepFor is how many names the scan after one that found total
// messages keeps, with floor the inbox's batch (scanBatch).
func keepFor(floor, total int) int {
	return max(min(total/4, maxScanBatch), floor)
}

// stagingMaxAge is how old a staging file in tmp/ must be before the
// inbox's owner removes it as the orphan of a crashed sender (see
// dropStaging). Senders hold a staging file for milliseconds.
const stagingMaxAge = time.Minute

// Inbox is one agent's inbox, owned by this process from Store.OpenInbox
// until Close. Next may be called from one goroutine at a time (calls
// queue); Ack and Quarantine from any goroutine.
type Inbox struct {
	s      *Store
	agent  string
	dir    string   // <root>/<agent>
	lock   *os.File // holds the flock on <agent>/.lock
	log    *slog.Logger
	watch  *watcher      // watches inbox/ and priority/
	batch  int           // names kept per scan, at least
	keep   int           // names the next scan of inbox/ keeps (keepFor), 0 before the first
	sem    chan struct{} // held by the running Next (and by Close, for good)
	notify chan struct{} // inbox/ may have changed; buffered 1
	prio   chan struct{} // priority/ may have changed; buffered 1
	// quietInbox and quietPrio let the watcher's tick skip inbox/ and
	// priority/ while they stay as empty as their last scans found them.
	quietInbox, quietPrio quietMark
	done                  chan struct{} // closed by Close
	once                  sync.Once
	onWait                func() // tests: called when Next starts waiting

	// Owned by the running Next.
	pending     []string            // names to try, ascending
	pendingSub  string              // their folder: claimedDir while recovering claimed/, else inboxDir
	recovering  bool                // pending holds an earlier owner's claims
	recovered   chan struct{}       // closed when recovering ends (Recovered)
	cursor      string              // the last name recovered from claimed/
	claimedDone bool                // claimed/ was recovered
	relog       []string            // names the claim log holds for an earlier owner, still in inbox/
	logged      map[string]claimed  // what the claim log recorded before this owner, by name
	claims      *claimLog           // see claimsName
	batchOpen   bool                // pending holds an inbox batch
	progress    bool                // something in the current batch moved
	seen        map[string]struct{} // message names the last inbox scan kept
	urgent      []string            // priority markers to take before pending, highest first

	tasks taskIndex // processed messages by task, for SweepTask; has its own lock

	commit *groupCommit // nil with Options.NoSync

	mu       sync.Mutex // guards the fields below
	closed   bool
	journal  *journal
	inflight map[string]int     // own ids handed out and not yet settled
	handed   map[string]claimed // names handed out and not yet settled: their claims
	held     heldDirs           // swapped only by Next (refreshHeld), under mu
	retired  []heldDirs         // replaced by refreshHeld, closed with the inbox
	moving   sync.WaitGroup     // acknowledgements moving a file (Add under mu, while open)
}

var (
	_ driver.Inbox          = (*Inbox)(nil)
	_ driver.PipelinedAcker = (*Inbox)(nil)
)

// OpenInbox implements driver.Backend. It creates the agent's folders as
// needed, takes the flock on <agent>/.lock (failing with an error wrapping
// driver.ErrInboxBusy, naming the holder's pid, if another process or Inbox
// holds it), loads the dedup journal and starts watching inbox/ with
// fsnotify (through the process's one watcher, shared by every inbox),
// plus a rescan every Options.PollInterval as a safety net.
// Messages an earlier owner claimed and did not settle (it crashed or
// stopped first: see claimsName; or, before the claim log, left in
// claimed/) are handed out first, marked Redelivered.
func (s *Store) OpenInbox(ctx context.Context, agentID string) (driver.Inbox, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	dir, err := s.ensureAgentDirs(agentID, inboxDir, processedDir, tmpDir, rejectedDir, stateDir, priorityDir)
	if err != nil {
		return nil, fmt.Errorf("open inbox: %w", err)
	}
	lock, err := lockInbox(dir, agentID)
	if err != nil {
		return nil, err
	}
	j, err := openJournal(filepath.Join(dir, stateDir, journalName), journalKeep, !s.opts.NoSync)
	if err != nil {
		releaseLock(lock)
		return nil, fmt.Errorf("open inbox of %q: %w", agentID, err)
	}
	in := &Inbox{
		s: s, agent: agentID, dir: dir, lock: lock, batch: scanBatch,
		log:     s.opts.Logger.With("agent", agentID),
		sem:     make(chan struct{}, 1),
		notify:  make(chan struct{}, 1),
		prio:    make(chan struct{}, 1),
		done:    make(chan struct{}),
		journal: j, inflight: map[string]int{}, handed: map[string]claimed{}, recovering: true, recovered: make(chan struct{}),
	}
	if err := in.loadClaims(); err != nil {
		j.close()
		releaseLock(lock)
		return nil, fmt.Errorf("open inbox of %q: %w", agentID, err)
	}
	if !s.opts.NoSync {
		in.commit = newGroupCommit(s.emitBatch)
	}
	if err := in.openHeld(); err != nil {
		j.close()
		in.claims.close()
		releaseLock(lock)
		return nil, fmt.Errorf("open inbox of %q: %w", agentID, err)
	}
	in.sweepStaging()
	// The watch starts before the first scan (which Next makes), so no
	// file that arrives in between goes unnoticed.
	hub := s.watchHub()
	in.watch = startWatcher(hub, s.root, s.opts.PollInterval, in.log,
		folder{filepath.Join(dir, inboxDir), in.notify, &in.quietInbox},
		folder{filepath.Join(dir, priorityDir), in.prio, &in.quietPrio})
	in.pokePriority() // read the markers before the first pending name
	if err := s.inboxes.Add(in); err != nil {
		return nil, err
	}
	return in, nil
}

// Agent returns the agent whose inbox this is.
func (in *Inbox) Agent() string { return in.agent }

// Close implements driver.Inbox: it waits for a running Next to return
// (which it makes return driver.ErrClosed) and for the acknowledgements
// made so far to be durable, stops the watcher and releases the flock.
// Claimed messages that were not acknowledged stay in inbox/, listed in
// the claim log, and are redelivered when the inbox is opened again; a
// release line in the log says that this hand-out ended in a clean stop,
// not a crash, so it does not count towards Options.MaxDeliver. Later calls of Next,
// Ack and Quarantine fail with driver.ErrClosed.
func (in *Inbox) Close() error { return in.close(true) }

// close is Close; release says whether the claims still open are released
// (a clean stop) or left as a crash leaves them (tests).
func (in *Inbox) close(release bool) error {
	var err error
	in.once.Do(func() {
		close(in.done)
		in.sem <- struct{}{} // taken for good: no Next runs from now on
		in.mu.Lock()
		in.closed = true // no Ack starts from now on
		in.mu.Unlock()
		in.moving.Wait() // those started end, and submit to the commit
		if in.commit != nil {
			in.commit.flush() // what was acknowledged is durable before the lock goes
		}
		if release {
			in.releaseClaims()
		}
		errs := []error{in.journal.close(), in.claims.close(), in.held.close()}
		for _, h := range in.retired {
			errs = append(errs, h.close())
		}
		in.watch.stop()
		err = errors.Join(append(errs, releaseLock(in.lock))...)
		in.s.inboxes.Remove(in)
	})
	return err
}

// sweepStaging removes staging files that crashed senders left in tmp/
// (see dropStaging). It runs when the inbox is opened and with each Prune.
func (in *Inbox) sweepStaging() {
	tmp := filepath.Join(in.dir, tmpDir)
	cutoff := in.s.opts.Now().Add(-stagingMaxAge)
	err := eachEntry(tmp, func(e fs.DirEntry) {
		if classify(e.Name()) != entryWriting || !e.Type().IsRegular() {
			return
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().Before(cutoff) {
			in.dropStaging(tmp, e.Name(), fi)
		}
	})
	if err != nil {
		in.log.Warn("sweep staging files", "err", err)
	}
}

// lockName is the file in an agent's folder whose flock marks the owner of
// the inbox. The kernel drops the lock when the owner exits, however it
// exits, so a stale file is harmless.
const lockName = ".lock"

// lockInbox takes the exclusive flock on <dir>/.lock without waiting and
// writes this process's pid into the file. If another open file holds the
// lock (another process, or another Inbox of this one) it fails with an
// error wrapping driver.ErrInboxBusy that names the holder's pid. Closing
// the returned file releases the lock.
func lockInbox(dir, agentID string) (*os.File, error) {
	path := filepath.Join(dir, lockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("lock inbox of %q: %s is a symlink; refusing to follow it", agentID, path)
		}
		return nil, fmt.Errorf("lock inbox of %q: %w", agentID, err)
	}
	locked, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock inbox of %q: %w", agentID, err)
	}
	if !locked {
		holder := readHolder(f)
		f.Close()
		return nil, fmt.Errorf("inbox of %q is open in %s (lock %s); stop that process first: %w",
			agentID, holder, path, driver.ErrInboxBusy)
	}
	if err := writePID(f, os.Getpid()); err != nil {
		// Without its pid the file would name a former holder (or none)
		// to whoever finds the inbox busy: give the lock back instead.
		f.Close()
		return nil, fmt.Errorf("lock inbox of %q: write pid: %w", agentID, err)
	}
	return f, nil
}

// pidFile is what writePID needs of the lock file.
type pidFile interface {
	Truncate(size int64) error
	WriteAt(b []byte, off int64) (int, error)
}

// writePID replaces the content of the lock file with pid and a newline.
func writePID(f pidFile, pid int) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(pid)+"\n"), 0)
	return err
}

// readHolder describes the process named in a held lock file.
func readHolder(f *os.File) string {
	buf := make([]byte, 32)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "another process"
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return "another process"
	}
	if pid == os.Getpid() {
		return fmt.Sprintf("this process (pid %d)", pid)
	}
	return fmt.Sprintf("process %d", pid)
}

var _ driver.Picker = (*Inbox)(nil)

// Pick implements driver.Picker: it claims the message file that ref (a
// path under the root, as Browse gives it) names in this agent's inbox/
// or claimed/ and hands it out, out of turn, as Next would (in the claim
// log, checked for its recipient and for duplicates). Next skips it
// afterwards: once settled, its file is gone from inbox/.
func (in *Inbox) Pick(ctx context.Context, ref string) (*driver.Delivery, error) {
	if err := driver.StillOpen(ctx, in.done); err != nil {
		return nil, err
	}
	agent, rest, _ := strings.Cut(filepath.ToSlash(ref), "/")
	sub, name, _ := strings.Cut(rest, "/")
	if agent != in.agent || (sub != inboxDir && sub != claimedDir) || classify(name) != entryMessage {
		return nil, fmt.Errorf("pick %s: not a message waiting in the inbox of %q: %w", ref, in.agent, fs.ErrNotExist)
	}
	if err := driver.TakeTurn(ctx, in.sem, in.done); err != nil { // not beside a running Next
		return nil, err
	}
	defer func() { <-in.sem }()
	_, logged := in.logged[name]
	d := in.take(name, sub, logged || sub == claimedDir)
	if d == nil {
		return nil, fmt.Errorf("pick %s: gone, handled already or set aside: %w", ref, fs.ErrNotExist)
	}
	return d, nil
}

// heldDirs are the folders an Inbox moves messages through, held open for
// the inbox's life: reads and acknowledgements work relative to them, and
// commits fsync them, without a path walk. (claimed/, where claims were
// moved before the claim log, is only read when the inbox is opened, by
// path.)
type heldDirs struct {
	inbox, processed *heldDir
}

// openHeld opens the inbox's folders (which OpenInbox created).
func (in *Inbox) openHeld() error {
	var h heldDirs
	for _, f := range []struct {
		sub string
		dst **heldDir
	}{{inboxDir, &h.inbox}, {processedDir, &h.processed}} {
		d, err := openHeldDir(filepath.Join(in.dir, f.sub))
		if err != nil {
			h.close()
			return err
		}
		*f.dst = d
	}
	in.held = h
	return nil
}

// close lets the held folders go.
func (h heldDirs) close() error {
	var errs []error
	for _, d := range []*heldDir{h.inbox, h.processed} {
		if d != nil {
			errs = append(errs, d.close())
		}
	}
	return errors.Join(errs...)
}

// refreshHeld opens the folders again when one of them was removed or
// replaced since it was opened (recreating them as needed), so that moves
// go to the folders the paths name. It runs before each scan of inbox/
// (two stats a folder per scan of up to scanBatch names) and after a move
// that failed. reopened reports that it did. The caller runs Next and
// holds in.mu.
func (in *Inbox) refreshHeld() (reopened bool, err error) {
	h := in.held
	if !h.inbox.stale() && !h.processed.stale() {
		return false, nil
	}
	if _, err := in.s.ensureAgentDirs(in.agent, inboxDir, processedDir, rejectedDir); err != nil {
		return false, err
	}
	if in.commit != nil {
		in.commit.flush()
	}
	old := in.held
	if err := in.openHeld(); err != nil {
		return false, err
	}
	in.retired = append(in.retired, old) // closed with the inbox: a pending commit may still sync them
	return true, nil
}

// emitBatch reports the events of a group commit like emit, the audit log
// lines in one write.
func (s *Store) emitBatch(evs []driver.Event) {
	for i := range evs {
		if evs[i].Time.IsZero() {
			evs[i].Time = s.opts.Now()
		}
		if s.opts.Observer != nil {
			s.opts.Observer(evs[i])
		}
	}
	if s.audit == nil {
		return
	}
	if err := s.audit.AppendBatch(evs); err != nil {
		s.opts.Logger.Warn("audit log not written", "lines", len(evs), "err", err)
	}
}
