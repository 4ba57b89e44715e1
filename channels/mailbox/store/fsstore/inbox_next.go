package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"

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
	sc, err := scanDir(inbox, 2*keep, "", skip)
	if errors.Is(err, fs.ErrNotExist) { // removed under us: recreate it
		if err = in.refreshFolders(); err == nil {
			sc, err = scanDir(inbox, 2*keep, "", skip)
		}
	}
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
