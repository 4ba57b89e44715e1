package fsstore

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
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
	in.handed[name] = claimed{n: n, at: at, moved: sub == claimedDir}
	if in.claims.due() && !in.recovering {
		if err := in.claims.rewrite(in.handed, recounted(in.handed) && !in.s.opts.NoSync); err != nil {
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
		return n, driver.MaxDeliverReason(n-1, max)
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
	if err := in.claims.rewrite(open, recounted(open) && !in.s.opts.NoSync); err != nil {
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
