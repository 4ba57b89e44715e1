package fsstore

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

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
// claimed/ too. The log is rewritten with those names only.
func (in *Inbox) loadClaims() error {
	if err := checkDir(filepath.Join(in.dir, claimedDir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err // a symlink, say: recovery would read what it points at
	}
	l, counts, err := openClaimLog(filepath.Join(in.dir, stateDir, claimsName))
	if err != nil {
		return err
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
	if err := l.rewrite(counts); err != nil {
		in.log.Warn("claim log not compacted", "err", err)
	}
	if err := os.Remove(filepath.Join(in.dir, stateDir, oldAttemptsName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		in.log.Debug("cannot remove the old delivery attempts record", "err", err)
	}
	return nil
}

// exists reports whether path names an entry (any kind).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// claim records the hand-out of name in the claim log and among the
// handed-out names, and returns "" to hand it out, or why it must be set
// aside instead (countAttempt). The log then grows past
// claimLogCompactAt, it is rewritten with the claims still open.
func (in *Inbox) claim(name, sub string, recovered bool) string {
	n := 1
	if recovered {
		var reason string
		if n, reason = in.countAttempt(name, sub); reason != "" {
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
	in.handed[name] = claimed{n: n, at: at}
	if in.claims.size > claimLogCompactAt && !in.recovering {
		if err := in.claims.rewrite(in.handed); err != nil {
			in.log.Warn("claim log not compacted", "err", err)
		}
	}
	return ""
}

// countAttempt returns how many times name, a message an earlier owner
// of the inbox handed out and did not settle (it crashed, or stopped,
// first), has been handed out once this hand-out is made, and why it
// must be set aside instead ("" to hand it out). The earlier hand-outs are
// the claim log's lines for it (at least one), and for a message in
// claimed/ also the move that put it there. As the log is written
// before each hand-out, a message that crashes every receiver is set
// aside after MaxDeliver hand-outs however often the receiver restarts.
// A message handed out once and acknowledged costs no more than its
// claim: only recoveries count.
func (in *Inbox) countAttempt(name, sub string) (n int, reason string) {
	earlier := max(in.logged[name].n, 1)
	if sub == claimedDir {
		earlier = in.logged[name].n + 1
	}
	n = earlier + 1
	delete(in.logged, name)
	if max := in.s.opts.MaxDeliver; max >= 0 && n > max {
		return n, store.MaxDeliverReason(n-1, max)
	}
	return n, ""
}

// endRecovery ends the hand-out of an earlier owner's claims: what the
// claim log recorded for them is no longer needed (each was handed out
// again, set aside or is gone), and the log keeps only open claims.
func (in *Inbox) endRecovery() {
	in.recovering, in.logged = false, nil
	in.mu.Lock()
	open := maps.Clone(in.handed)
	in.mu.Unlock()
	if err := in.claims.rewrite(open); err != nil {
		in.log.Warn("claim log not compacted", "err", err)
	}
}

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
