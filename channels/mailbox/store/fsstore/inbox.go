package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
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
	done   chan struct{} // closed by Close
	once   sync.Once
	onWait func() // tests: called when Next starts waiting

	// Owned by the running Next.
	pending     []string            // names to try, ascending
	pendingSub  string              // their folder: claimedDir while recovering claimed/, else inboxDir
	recovering  bool                // pending holds an earlier owner's claims
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
		journal: j, inflight: map[string]int{}, handed: map[string]claimed{}, recovering: true,
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
		folder{filepath.Join(dir, inboxDir), in.notify}, folder{filepath.Join(dir, priorityDir), in.prio})
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
// the claim log, and are redelivered when the inbox is opened again. Later calls of Next,
// Ack and Quarantine fail with driver.ErrClosed.
func (in *Inbox) Close() error {
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
