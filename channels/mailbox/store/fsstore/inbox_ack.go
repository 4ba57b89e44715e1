package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// claimRef is the Delivery.Ref of this store: the claimed file.
type claimRef struct {
	mu    sync.Mutex // held while it is settled: one Ack or Quarantine at a time
	in    *Inbox
	name  string // in sub
	sub   string // inboxDir, or claimedDir for a claim recovered from there
	id    string
	own   bool     // id is unique (envelope.IsOwnID)
	state refState // guarded by in.mu
}

type refState int

const (
	refClaimed refState = iota
	refAcked
	refQuarantined
)

// claimOf returns the claim behind d, which must come from this inbox.
func (in *Inbox) claimOf(d *driver.Delivery) (*claimRef, error) {
	if d == nil {
		return nil, errors.New("nil delivery")
	}
	c, ok := d.Ref.(*claimRef)
	if !ok || c.in != in {
		return nil, fmt.Errorf("delivery was not handed out by the inbox of %q", in.agent)
	}
	return c, nil
}

// Ack implements driver.Inbox: it records the message id in the dedup
// journal (own ids only), moves the file from inbox/ to processed/ under
// the same name (nanobot's processed/ format) and, unless Options.NoSync,
// waits until the move and the journal line are durable: the group commit
// that makes them so serves every acknowledgement made meanwhile, with one
// fsync of processed/ and one of the journal. Acknowledging twice is
// harmless. The move is quick and never half done, so ctx is not
// consulted. A journal line that cannot be written (a full disk) does not
// fail the acknowledgement: the id is remembered while the inbox is open,
// with a warning.
func (in *Inbox) Ack(ctx context.Context, d *driver.Delivery) error {
	if in.commit == nil {
		return in.ack(d, nil, true)
	}
	ch := make(chan error, 1)
	if err := in.ack(d, func(err error) { ch <- err }, true); err != nil {
		return err
	}
	return <-ch
}

// AckPipelined implements driver.PipelinedAcker: it acknowledges d as Ack
// does but returns once the message is in processed/, without waiting
// for the group commit that makes the acknowledgement durable; durable
// (may be nil) is called when it is, or with the error that kept it from
// being. Close waits for every pending commit. A receiver that takes the
// next message meanwhile loses nothing: an acknowledgement a machine crash
// undoes only brings the message back (at-least-once), and the dedup
// journal drops it if its line was made durable.
func (in *Inbox) AckPipelined(_ context.Context, d *driver.Delivery, durable func(error)) error {
	return in.ack(d, durable, false)
}

// ack acknowledges d for Ack and AckPipelined; wait says that the caller
// waits for durable, so the group commit does not keep the batch open
// for more.
func (in *Inbox) ack(d *driver.Delivery, durable func(error), wait bool) error {
	c, err := in.claimOf(d)
	if err != nil {
		return fmt.Errorf("ack: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	in.mu.Lock()
	journaled, err := in.settleLocked(c, refAcked)
	if err != nil || c.state == refAcked {
		if err == nil && in.commit != nil {
			// Acknowledged before: durable once the batches now pending are.
			in.commit.submit(wait, nil, durable)
			durable = nil
		}
		in.mu.Unlock()
		if err == nil && durable != nil {
			durable(nil)
		}
		return err
	}
	// The move is made without in.mu, so that Next goes on meanwhile; Close
	// waits for it (moving) before it lets the folders go.
	held := in.held
	in.moving.Add(1)
	in.mu.Unlock()
	defer in.moving.Done()
	got, err := in.toProcessed(held, c.sub, c.name)
	in.mu.Lock()
	if err != nil {
		in.mu.Unlock()
		return fmt.Errorf("ack %s: move to processed: %w", c.id, err)
	}
	in.markLocked(c, refAcked)
	ev := messageEvent(driver.EventProcessed, in.agent, d.Message, got)
	ev.Time = in.s.opts.Now()
	if in.commit != nil {
		targets := []syncTarget{held.processed}
		if journaled {
			targets = append(targets, in.journal)
		}
		// Submitted before moving is done, so that Close, which
		// flushes after the moves end, sees every acknowledgement.
		in.commit.submit(wait, &ev, wrapAckErr(c.id, durable), targets...)
	}
	in.mu.Unlock()
	in.noteAcked(d.Message.TaskOf(), got)
	if in.commit == nil {
		in.s.emit(ev)
		if durable != nil {
			durable(nil)
		}
	}
	return nil
}

// wrapAckErr names the message in a failed commit's error.
func wrapAckErr(id string, durable func(error)) func(error) {
	if durable == nil {
		return nil
	}
	return func(err error) {
		if err != nil {
			err = fmt.Errorf("ack %s: sync: %w", id, err)
		}
		durable(err)
	}
}

// Quarantine implements driver.Inbox: it moves the claimed file to rejected/
// with a reason file and reports EventRefused. The id is recorded in the
// dedup journal (durably unless Options.NoSync), so a retried send of the
// same message is not handed out again either.
func (in *Inbox) Quarantine(_ context.Context, d *driver.Delivery, reason string) error {
	c, err := in.claimOf(d)
	if err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	in.mu.Lock()
	journaled, err := in.settleLocked(c, refQuarantined)
	if err != nil || c.state == refQuarantined {
		in.mu.Unlock()
		return err
	}
	if err := in.quarantine(c.sub, c.name, reason, driver.EventRefused, d.Message); err != nil {
		in.mu.Unlock()
		return fmt.Errorf("quarantine %s: %w", c.id, err)
	}
	in.markLocked(c, refQuarantined)
	var done chan error
	if journaled && in.commit != nil {
		done = make(chan error, 1)
		in.commit.submit(true, nil, func(err error) { done <- err }, in.journal)
	}
	in.mu.Unlock()
	if done != nil {
		if err := <-done; err != nil {
			return fmt.Errorf("quarantine %s: %w", c.id, err)
		}
	}
	return nil
}

// settleLocked checks that c can be settled as want and journals its id;
// journaled reports a journal line to make durable. It returns nil
// without journaling when c is already settled as want. A journal line
// that cannot be written (a full disk) does not keep c from being
// settled: the id is remembered in memory only, with a warning.
func (in *Inbox) settleLocked(c *claimRef, want refState) (journaled bool, err error) {
	switch {
	case in.closed:
		return false, driver.ErrClosed
	case c.state == want:
		return false, nil
	case c.state != refClaimed:
		return false, fmt.Errorf("message %s was already settled otherwise (acknowledged or quarantined)", c.id)
	}
	if !c.own {
		return false, nil
	}
	if journaled, err = in.journal.add(c.id); err != nil {
		// A full disk, say. The message is settled all the same: left in
		// inbox/ it would surely be handed out again after a restart,
		// while the journal only catches a copy sent again.
		in.journal.ids.Add(c.id)
		in.log.Warn("dedup journal not written; a copy of the message sent again after a restart would be handed out again",
			"id", c.id, "err", err)
		return false, nil
	}
	if in.journal.needsCompaction() {
		if err := in.journal.compact(); err != nil {
			in.log.Warn("journal not compacted; it keeps growing until it is", "err", err)
		}
	}
	return journaled, nil
}

// markLocked records that c was settled.
func (in *Inbox) markLocked(c *claimRef, st refState) {
	c.state = st
	delete(in.handed, c.name)
	if c.own {
		if in.inflight[c.id]--; in.inflight[c.id] <= 0 {
			delete(in.inflight, c.id)
		}
	}
}

// DefaultMaxDeliver is Options.MaxDeliver's default, NATS's too.
const DefaultMaxDeliver = 5

// oldAttemptsName is the file in <agent>/state/ where the hand-outs of
// recovered messages were counted before the claim log counted them.
// Opening an inbox removes it.
const oldAttemptsName = ".delivery-attempts.json"

// loadClaims opens the claim log and takes from it what an earlier owner
// of the inbox claimed and did not settle: the names whose files are still
// in inbox/ are handed out first (relog), and how often each was handed
// out counts towards Options.MaxDeliver (countAttempt), for those in
// claimed/ too. The log is rewritten with those names only. Something
// other than a regular file in the log's place is set aside (see
// setAsideClaimLog) rather than keep the agent from starting.
func (in *Inbox) loadClaims() error {
	if err := checkDir(filepath.Join(in.dir, claimedDir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err // a symlink, say: recovery would read what it points at
	}
	path := filepath.Join(in.dir, stateDir, claimsName)
	counts, torn, err := readClaimLog(path)
	if errors.Is(err, errClaimLogKind) {
		err = in.setAsideClaimLog(path, err)
	}
	if err != nil {
		return fmt.Errorf("claim log: %w", err)
	}
	l, err := openClaimLog(path, torn)
	if err != nil {
		return fmt.Errorf("claim log: %w", err)
	}
	in.claims = l
	for name := range counts {
		switch {
		case exists(filepath.Join(in.dir, inboxDir, name)):
			in.relog = append(in.relog, name)
		case !exists(filepath.Join(in.dir, claimedDir, name)):
			delete(counts, name) // settled
		}
	}
	slices.Sort(in.relog)
	in.logged = counts
	// Made durable when it holds counts: the redeliveries' appends,
	// synced, go to this file, and must not be undone with it.
	if err := l.rewrite(counts, len(counts) > 0 && !in.s.opts.NoSync); err != nil {
		in.log.Warn("claim log not compacted", "err", err)
	}
	if err := os.Remove(filepath.Join(in.dir, stateDir, oldAttemptsName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		in.log.Debug("cannot remove the old delivery attempts record", "err", err)
	}
	return nil
}

// setAsideClaimLog renames what stands in the claim log's place and is
// not a regular file (why says what) to .claims-corrupt-<unix ms>
// beside it, so that a fresh log can be started. What it recorded is
// lost: messages an earlier owner held come back as new ones, neither
// marked redelivered nor counted towards MaxDeliver.
func (in *Inbox) setAsideClaimLog(path string, why error) error {
	aside := fmt.Sprintf("%s-corrupt-%d", path, in.s.opts.Now().UnixMilli())
	if err := os.Rename(path, aside); err != nil {
		return fmt.Errorf("%w; cannot set it aside: %w", why, err)
	}
	in.log.Warn("claim log set aside; messages held before come back as new", "reason", why, "to", aside)
	return nil
}

// exists reports whether path names an entry (any kind).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// claim records the hand-out of name in the claim log and among the
// handed-out names, and returns "" to hand it out, or why it must be set
// aside instead (countAttempt, or a name the log cannot hold). When the
// log is due (claimLogCompactAt), it is rewritten with the claims still
// open.
func (in *Inbox) claim(name, sub string, recovered bool) string {
	if strings.Contains(name, "\n") {
		return "file name holds a line break: it cannot be claimed"
	}
	c := claimed{n: 1}
	if recovered {
		var reason string
		if c, reason = in.countAttempt(name, sub); reason != "" {
			return reason
		}
	}
	// A recovery's count is made durable before the message goes out
	// again, so a message that crashes the machine is set aside too.
	at := in.s.opts.Now()
	if err := in.claims.add(name, at, recovered && !in.s.opts.NoSync); err != nil {
		in.log.Warn("claim not recorded; after a crash the message comes back as new", "file", name, "err", err)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	c.at, c.moved = at, sub == claimedDir
	in.handed[name] = c
	if in.claims.due() && !in.recovering {
		if err := in.claims.rewrite(in.handed, recounted(in.handed) && !in.s.opts.NoSync); err != nil {
			in.log.Warn("claim log not compacted", "err", err)
		}
	}
	return ""
}

// countAttempt returns the claim of name, a message an earlier owner of
// the inbox handed out and did not settle (it crashed, or stopped,
// first), once this hand-out is made, and why it must be set aside
// instead ("" to hand it out). The earlier hand-outs are the claim log's
// lines for it (at least one), and for a message in claimed/ also the
// move that put it there; those a clean stop released (its release lines)
// do not count. As the log is written before each hand-out, a message
// that crashes every receiver is set aside after MaxDeliver hand-outs
// however often the receiver restarts, while one held across clean stops
// (a task waiting on its subtask) is handed out again however often the
// receiver stops. A message handed out once and acknowledged costs no
// more than its claim: only recoveries count.
func (in *Inbox) countAttempt(name, sub string) (c claimed, reason string) {
	c = in.logged[name]
	delete(in.logged, name)
	if sub == claimedDir {
		c.n++ // the move that put it there
	}
	c.n = max(c.n, 1) + 1
	if max := in.s.opts.MaxDeliver; max >= 0 && c.counted() > max {
		return c, driver.MaxDeliverReason(c.counted()-1, max)
	}
	return c, ""
}

// releaseClaims appends to the claim log a release line for each message
// handed out and not settled, when the inbox closes cleanly: each comes
// back first at the next opening, marked redelivered, and that hand-out
// does not count towards MaxDeliver (the receiver stopped, it did not
// crash on it). A release that cannot be written (a full disk) is
// logged: those hand-outs then count, as a crash's would.
func (in *Inbox) releaseClaims() {
	in.mu.Lock()
	names := slices.Sorted(maps.Keys(in.handed))
	in.mu.Unlock()
	if err := in.claims.release(names, in.s.opts.Now(), !in.s.opts.NoSync); err != nil {
		in.log.Warn("claims not released; the messages held count as handed out once more", "messages", len(names), "err", err)
	}
}

// endRecovery ends the hand-out of an earlier owner's claims: what the
// claim log recorded for them is no longer needed (each was handed out
// again, set aside or is gone), and the log keeps only open claims.
func (in *Inbox) endRecovery() {
	in.recovering, in.logged = false, nil
	defer close(in.recovered)
	in.mu.Lock()
	open := maps.Clone(in.handed)
	in.mu.Unlock()
	if err := in.claims.rewrite(open, recounted(open) && !in.s.opts.NoSync); err != nil {
		in.log.Warn("claim log not compacted", "err", err)
	}
}

var _ driver.Recoverer = (*Inbox)(nil)

// Recovered implements driver.Recoverer: it is closed when the Next after
// the last of an earlier owner's claims ends the recovery (endRecovery).
func (in *Inbox) Recovered() <-chan struct{} { return in.recovered }

// forget undoes take's count of an own message id in flight, for a
// message set aside instead of handed out.
func (in *Inbox) forget(id string, own bool) {
	if !own {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.inflight[id]--; in.inflight[id] <= 0 {
		delete(in.inflight, id)
	}
}
