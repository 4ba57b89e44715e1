package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Next implements driver.Inbox. It hands out first the messages an earlier
// owner claimed and did not settle (Redelivered, in name order: those it
// left in claimed/, then those of the claim log), then pending inbox
// files in file-name order, claiming each in the claim log (see
// claimsName). Files it cannot use are quarantined in rejected/ with the
// reason (reported as EventQuarantined) and never stop it; a message whose
// own id was already handled is moved to processed/ (EventDuplicate). Next
// waits for fsnotify or the periodic rescan when the inbox is empty. It
// returns driver.ErrClosed once the inbox is closed, or ctx's error.
//
// Memory stays bounded with any backlog: a scan streams the folder and
// keeps only the smallest names; the folder is scanned again when they are
// used up, so a message that arrives meanwhile waits at most one batch. A
// name is handed out only once two scans in a row have listed it (see
// settled), which keeps each sender's order while files arrive.
func (in *Inbox) Next(ctx context.Context) (*driver.Delivery, error) {
	if err := driver.TakeTurn(ctx, in.sem, in.done); err != nil {
		return nil, err
	}
	defer func() { <-in.sem }()
	for {
		if err := driver.StillOpen(ctx, in.done); err != nil {
			return nil, err
		}
		if !in.recovering {
			select {
			case <-in.prio:
				in.loadUrgent()
			default:
			}
			if len(in.urgent) > 0 {
				if d := in.takeUrgent(); d != nil {
					return d, nil
				}
				continue
			}
		}
		if len(in.pending) > 0 {
			name := in.pending[0]
			in.pending = in.pending[1:]
			if d := in.take(name, in.pendingSub, in.recovering); d != nil {
				return d, nil
			}
			continue
		}
		wait, err := in.refill()
		if err != nil {
			return nil, err
		}
		if !wait {
			continue
		}
		if in.onWait != nil {
			in.onWait()
		}
		select {
		case <-in.notify:
		case <-in.done:
			return nil, driver.ErrClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// refill loads the next names to try. wait reports that there is nothing
// to do until the watcher pokes.
func (in *Inbox) refill() (wait bool, err error) {
	if in.recovering {
		return false, in.refillRecovered()
	}
	if in.batchOpen && !in.progress {
		// Nothing in the last batch could be claimed (an I/O error each
		// time): wait for a change or the next rescan rather than spin.
		in.batchOpen = false
		return true, nil
	}
	in.batchOpen = false
	select { // a poke from now on means "scan again"
	case <-in.notify:
	default:
	}
	if err := in.refreshFolders(); err != nil {
		return false, err
	}
	inbox := filepath.Join(in.dir, inboxDir)
	keep := max(in.keep, in.batch)
	in.mu.Lock()
	handed := maps.Clone(in.handed) // only Next adds to it
	in.mu.Unlock()
	skip := func(name string) bool { _, ok := handed[name]; return ok }
	before := statBeforeScan(inbox)
	sc, err := scanDir(inbox, 2*keep, "", skip)
	if errors.Is(err, fs.ErrNotExist) { // removed under us: recreate it
		if err = in.refreshFolders(); err == nil {
			before = statBeforeScan(inbox)
			sc, err = scanDir(inbox, 2*keep, "", skip)
		}
	}
	in.quietInbox.scanned(before, err == nil && sc.total == 0 && len(sc.foreign) == 0, time.Now())
	if err != nil {
		return false, fmt.Errorf("scan inbox of %q: %w", in.agent, err)
	}
	moved := in.quarantineForeign(inboxDir, sc.foreign)
	in.pending, in.pendingSub = in.settled(sc.names), inboxDir
	in.keep = keepFor(in.batch, sc.total)
	if len(in.pending) > 0 {
		in.batchOpen, in.progress = true, false
		return false, nil
	}
	if len(sc.names) > 0 {
		return false, nil // only names new to this scan: scan again
	}
	return !(sc.more && moved > 0), nil
}

// refreshFolders opens the inbox's folders again when one was removed or
// replaced (refreshHeld), and then watches inbox/ anew.
func (in *Inbox) refreshFolders() error {
	in.mu.Lock()
	reopened, err := in.refreshHeld()
	in.mu.Unlock()
	if err != nil {
		return fmt.Errorf("open the folders of %q: %w", in.agent, err)
	}
	if reopened {
		in.watch.rewatch(filepath.Join(in.dir, inboxDir), in.log)
	}
	return nil
}

// settled returns the leading names (at most a batch) that the previous
// scan kept too, stopping at the first it did not, and remembers names
// for the next scan. A folder listing is no snapshot: while files are
// being created, readdir can miss one yet return another created after
// it, so a sender's later message may be listed without its earlier one.
// A name the previous scan listed existed before this scan began, and so
// did every message its sender sent before it, which this scan therefore
// lists with a smaller name: handing out only such names keeps each
// sender's order.
func (in *Inbox) settled(names []string) []string {
	n := 0
	for n < len(names) && n < max(in.keep, in.batch) {
		if _, ok := in.seen[names[n]]; !ok {
			break
		}
		n++
	}
	in.seen = make(map[string]struct{}, len(names))
	for _, name := range names {
		in.seen[name] = struct{}{}
	}
	return names[:n]
}

// refillRecovered loads the next names an earlier owner left claimed:
// first those in claimed/ (where claims were moved before the claim log;
// nothing moves there now, so every name beyond the cursor is an earlier
// owner's), then those the claim log holds (loadClaims). When none is
// left, recovery ends.
func (in *Inbox) refillRecovered() error {
	if !in.claimedDone {
		sc, err := scanDir(filepath.Join(in.dir, claimedDir), in.batch, in.cursor, nil)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("scan claimed messages of %q: %w", in.agent, err)
		}
		in.quarantineForeign(claimedDir, sc.foreign)
		if len(sc.names) > 0 {
			in.cursor = sc.names[len(sc.names)-1]
			in.pending, in.pendingSub = sc.names, claimedDir
			return nil
		}
		in.claimedDone = true
	}
	if len(in.relog) > 0 {
		in.pending, in.pendingSub, in.relog = in.relog, inboxDir, nil
		return nil
	}
	in.endRecovery()
	return nil
}

// quarantineForeign sets aside entries whose names are not message names
// and returns how many it moved.
func (in *Inbox) quarantineForeign(sub string, names []string) int {
	moved := 0
	for _, name := range names {
		if in.quarantine(sub, name, "not a message file (name does not end in .msg.json)",
			driver.EventQuarantined, nil) == nil {
			moved++
		}
	}
	return moved
}

// take reads the message file name in the inbox's folder sub (inbox/, or
// claimed/ for what an owner before the claim log left there), claims it
// in the claim log and returns the delivery, or nil when there is nothing
// to hand out: the file was gone, is handed out already, was unusable
// (quarantined) or a duplicate (moved to processed/). recovered says that
// an earlier owner handed it out already.
func (in *Inbox) take(name, sub string, recovered bool) *driver.Delivery {
	in.mu.Lock()
	_, busy := in.handed[name]
	in.mu.Unlock()
	if busy {
		return nil // a priority marker for a message handed out already
	}
	msg, err := in.read(sub, name)
	if errors.Is(err, fs.ErrNotExist) {
		in.progress = true // moved away meanwhile (acknowledged, set aside): skip it
		return nil
	}
	in.progress = true
	if err != nil {
		in.quarantine(sub, name, err.Error(), driver.EventQuarantined, nil)
		return nil
	}
	if msg.To != in.agent {
		in.quarantine(sub, name, fmt.Sprintf("addressed to %q, not to %q", msg.To, in.agent),
			driver.EventQuarantined, msg)
		return nil
	}
	own := envelope.IsOwnID(msg.ID)
	in.mu.Lock()
	dup := own && (in.journal.has(msg.ID) || in.inflight[msg.ID] > 0)
	if own && !dup {
		in.inflight[msg.ID]++
	}
	in.mu.Unlock()
	if dup {
		in.dropDuplicate(sub, name, msg)
		return nil
	}
	if reason := in.claim(name, sub, recovered); reason != "" { // poison: see countAttempt
		in.forget(msg.ID, own)
		in.quarantine(sub, name, reason, driver.EventQuarantined, msg)
		return nil
	}
	in.s.emit(messageEvent(driver.EventClaimed, in.agent, msg, name))
	return &driver.Delivery{Message: msg, Redelivered: recovered, Ref: &claimRef{in: in, name: name, sub: sub, id: msg.ID, own: own}}
}

// read reads the message file sub/name: relative to the held inbox/ (one
// openat, one fstat, one read), by path for claimed/. A file with more
// than one link is checked first (extraLinks) and set aside if it must
// not be read.
func (in *Inbox) read(sub, name string) (*envelope.Message, error) {
	dir := filepath.Join(in.dir, sub)
	if sub == inboxDir {
		msg, links, err := readHeld(in.held.inbox, name, in.s.opts.MaxMessageBytes)
		if links <= 1 {
			return msg, err
		}
	}
	if reason := in.extraLinks(dir, name); reason != "" {
		return nil, errors.New(reason)
	}
	return readMessage(filepath.Join(dir, name), in.s.opts.MaxMessageBytes)
}

// dropDuplicate moves a copy of a message already handled (or being
// handled) from sub to processed/.
func (in *Inbox) dropDuplicate(sub, name string, msg *envelope.Message) {
	got, err := in.toProcessed(in.held, sub, name) // only Next swaps in.held
	if err != nil {
		in.log.Warn("cannot move duplicate to processed/; it stays", "file", name, "id", msg.ID, "err", err)
		return
	}
	in.log.Info("dropped a duplicate of a handled message", "file", name, "id", msg.ID, "from", msg.From)
	in.s.emit(messageEvent(driver.EventDuplicate, in.agent, msg, got))
}

// toProcessed moves sub/name into processed/ under a free name and
// returns it: relative to the held folders from inbox/ (by the paths when
// they were replaced since the last scan), by path from claimed/.
func (in *Inbox) toProcessed(held heldDirs, sub, name string) (string, error) {
	if sub == inboxDir {
		got, err := moveFreeAt(held.inbox, name, held.processed)
		if !errors.Is(err, fs.ErrNotExist) {
			return got, err
		}
	}
	return moveFree(filepath.Join(in.dir, sub), name, filepath.Join(in.dir, processedDir))
}

// priorityDir holds a marker for each pending message of priority 1 to
// 3: an empty file named "<3-priority>_<inbox name>", so that name order
// is priority order (highest first) and then delivery order. Messages are
// delivered into inbox/ as always (nanobot reads them there); the marker
// only lets the receiver take them first. A marker whose message is gone
// is simply removed.
const priorityDir = "priority"

// markerName returns the marker of inbox file name at priority p (1-3).
func markerName(name string, p int) string { return strconv.Itoa(3-p) + "_" + name }

// markedName returns the inbox file name a marker points to.
func markedName(marker string) string {
	if len(marker) > 2 && marker[1] == '_' {
		return marker[2:]
	}
	return ""
}

// markPriority records that inbox file name of agent folder dir has
// priority p. The message is delivered already, so a failure only costs
// its place in the queue: it is logged, not returned.
func (s *Store) markPriority(dir, name string, p int) {
	if p <= 0 || p > 3 {
		return
	}
	pdir := filepath.Join(dir, priorityDir)
	err := ensureDir(pdir)
	if err == nil {
		var f *os.File
		f, err = os.OpenFile(filepath.Join(pdir, markerName(name, p)), os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
		if err == nil {
			err = f.Close()
		} else if errors.Is(err, fs.ErrExist) {
			err = nil
		}
	}
	if err != nil {
		s.opts.Logger.Warn("priority not recorded; the message waits its turn", "file", name, "priority", p, "err", err)
	}
}

// loadUrgent reads the markers of priority messages, highest priority
// first.
func (in *Inbox) loadUrgent() {
	dir := filepath.Join(in.dir, priorityDir)
	before := statBeforeScan(dir)
	sc, err := scanDir(dir, in.batch, "", nil)
	in.quietPrio.scanned(before, err == nil && sc.total == 0 && len(sc.foreign) == 0, time.Now())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		in.log.Warn("cannot read priority markers; messages are taken in name order", "err", err)
	}
	in.urgent = sc.names
	for _, name := range sc.foreign { // not a marker: nothing else belongs here
		if err := os.Remove(filepath.Join(in.dir, priorityDir, name)); err != nil {
			in.log.Debug("cannot remove foreign entry of priority/", "name", name, "err", err)
		}
	}
}

// takeUrgent claims the message of the first marker and removes the
// marker. It returns nil when that message is no longer pending.
func (in *Inbox) takeUrgent() *driver.Delivery {
	marker := in.urgent[0]
	in.urgent = in.urgent[1:]
	defer func() {
		err := os.Remove(filepath.Join(in.dir, priorityDir, marker))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			in.log.Warn("cannot remove priority marker", "marker", marker, "err", err)
		}
	}()
	name := markedName(marker)
	if name == "" || classify(name) != entryMessage {
		return nil
	}
	return in.take(name, inboxDir, false)
}

// pokePriority asks Next to read the markers again.
func (in *Inbox) pokePriority() {
	select {
	case in.prio <- struct{}{}:
	default:
	}
}
