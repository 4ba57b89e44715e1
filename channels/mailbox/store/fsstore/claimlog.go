package fsstore

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// claimsName is the claim log in <agent>/state/. The inbox's owner
// appends a line to it before it hands a message out: the message's file
// name, a space and the time in Unix milliseconds (see Claims). The file
// stays in inbox/ until it is acknowledged (moved
// to processed/) or set aside. So a message is claimed when its name is
// in the log and its file still in inbox/: handed out, not yet settled.
// That is what a restart redelivers (Redelivered) and what the views show
// as claimed; how often a name is listed is how often it was handed out
// (see countAttempt). A claim costs one small append instead of a rename
// between two folders, which the kernel serialises across the file
// system. Appends are not synced, as the renames into claimed/ were not:
// a machine crash that undoes one leaves the message waiting as if never
// taken. The leading dot keeps the name apart from every state key
// (store.CheckStateKey).
const claimsName = ".claims"

// claimLogCompactAt is the size past which the owner rewrites the log
// with the claims still open (or empties it when none is), so the log
// stays small however many messages go through. With many claims open
// the log is let grow to twice what its last rewrite left (see due), so
// that each rewrite is paid for by as many appends.
const claimLogCompactAt = 64 << 10

// maxClaimLogBytes bounds what is read of a claim log: recovery and the
// views read no further (a log that long is not one this store wrote).
const maxClaimLogBytes = 8 << 20

// claimLog is the open claim log of an Inbox. Only the running Next
// writes to it.
type claimLog struct {
	path string
	f    *os.File // opened O_APPEND
	size int64
	base int64  // size after the last rewrite
	torn bool   // the log does not end with a whole line (an append cut short)
	buf  []byte // add's line, kept between claims
}

// openClaimLog opens (creating) the claim log at path for appending.
// torn says that the log's last line is not whole, so the first append
// starts a new line.
func openClaimLog(path string, torn bool) (*claimLog, error) {
	l := &claimLog{path: path}
	if err := l.open(); err != nil {
		return nil, err
	}
	l.torn = torn && l.size > 0
	return l, nil
}

// open opens the file at l.path, which must be a regular file (not a
// symlink, not a FIFO, which O_NONBLOCK keeps from blocking the open).
func (l *claimLog) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|noFollow|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("open %s: %w (%s)", l.path, errClaimLogKind, typeName(fi.Mode()))
	}
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.size, l.base, l.torn = f, fi.Size(), fi.Size(), false
	return nil
}

// add appends the claim of name at, in one write: the claim is recorded
// before the message is handed out. sync also makes it durable. After a
// write cut short (a full disk), the next claim starts on a line of its
// own, so that it is not lost with the torn one.
func (l *claimLog) add(name string, at time.Time, sync bool) error {
	b := l.buf[:0] // only the running Next appends: one buffer serves every claim
	if l.torn {
		b = append(b, '\n')
	}
	b = appendClaim(b, name, at)
	l.buf = b
	n, err := l.f.Write(b)
	l.size += int64(n)
	if n > 0 {
		l.torn = n < len(b)
	}
	if err == nil && sync {
		err = l.f.Sync()
	}
	return err
}

func appendClaim(b []byte, name string, at time.Time) []byte {
	b = append(b, name...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, at.UnixMilli(), 10)
	return append(b, '\n')
}

// due reports that the log has grown enough to be rewritten: past
// claimLogCompactAt, and past twice what the last rewrite left, so that
// however many claims are open a rewrite comes only after as many bytes
// of appends as it writes.
func (l *claimLog) due() bool {
	return l.size > max(claimLogCompactAt, 2*l.base)
}

// rewrite replaces the log with open (each claim's hand-outs, the last at
// its time), atomically, or empties it when open is empty. sync makes the
// new log durable before it replaces the old one.
func (l *claimLog) rewrite(open map[string]claimed, sync bool) error {
	if len(open) == 0 {
		if err := l.f.Truncate(0); err != nil {
			return err
		}
		l.size, l.base, l.torn = 0, 0, false
		return nil
	}
	var b []byte
	for _, name := range slices.Sorted(maps.Keys(open)) {
		for range open[name].lines() {
			b = appendClaim(b, name, open[name].at)
		}
	}
	if err := writeFileAtomic(l.path, b, sync); err != nil {
		return err
	}
	old := l.f
	if err := l.open(); err != nil {
		return err // old keeps appending to the file the rename replaced: claims go unrecorded, not wrong
	}
	return old.Close()
}

// recounted reports whether an open claim was handed out more than
// once: its count is what Options.MaxDeliver acts on, so a rewrite must
// not lose it.
func recounted(open map[string]claimed) bool {
	for _, c := range open {
		if c.n > 1 {
			return true
		}
	}
	return false
}

func (l *claimLog) close() error { return l.f.Close() }
