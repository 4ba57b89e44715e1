package fsstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// claimsName is the claim log in <agent>/state/. The inbox's owner
// appends a line to it before it hands a message out: the message's file
// name, a space and the time in Unix milliseconds (see Claims). The file
// stays in inbox/ until it is acknowledged (moved
// to processed/) or set aside. So a message is claimed when its name is
// in the log and its file still in inbox/: handed out, not yet settled.
// That is what a restart redelivers (Redelivered) and what the views show
// as claimed; how often a name is listed is how often it was handed out
// (see countAttempt). A clean stop of the inbox appends a release line
// for each claim still open ("<name> <ms> released", see release): that
// hand-out was not crashed on, and does not count. A claim costs one small
// append instead of a rename
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
		for range open[name].released {
			b = appendRelease(b, name, open[name].at)
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

// releasedMark ends a release line: the claim named before it was let go
// by a clean stop of the inbox. A reader from before release lines skips
// the line (its time does not parse).
const releasedMark = " released"

// release appends a release line for each of names, at, in one write, and
// makes it durable when sync: the inbox stopped cleanly while they were
// handed out, so those hand-outs do not count towards maxDeliver.
func (l *claimLog) release(names []string, at time.Time, sync bool) error {
	if len(names) == 0 {
		return nil
	}
	var b []byte
	if l.torn {
		b = append(b, '\n')
	}
	for _, name := range names {
		b = appendRelease(b, name, at)
	}
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

func appendRelease(b []byte, name string, at time.Time) []byte {
	b = appendClaim(b, name, at)
	return append(append(b[:len(b)-1], releasedMark...), '\n')
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

// claimed is what the claim log says of a message: how often it was
// handed out and when last, and how many of those hand-outs a clean stop
// released.
type claimed struct {
	n  int
	at time.Time
	// released is how many of the n hand-outs ended in a clean stop of
	// the inbox (its release lines): they do not count (see counted).
	released int
	// moved: the message is in claimed/, where its first hand-out put it
	// without a line in the log (see countAttempt), so the log lists it
	// one time fewer than n.
	moved bool
}

// counted is how many of c's hand-outs count towards Options.MaxDeliver:
// those a clean stop did not release.
func (c claimed) counted() int { return max(c.n-c.released, 0) }

// lines is how many hand-out lines the log holds for c.
func (c claimed) lines() int {
	if c.moved {
		return max(c.n-1, 1)
	}
	return max(c.n, 1)
}

// errClaimLogKind is the error of a claim log that is not a regular
// file (a directory, symlink or FIFO put in its place).
var errClaimLogKind = errors.New("the claim log is not a regular file")

// readClaimLog returns the message names the claim log at path lists,
// with how often and when last each was handed out; a missing log lists
// none. Lines that are not claims (a torn last line, damage) are skipped,
// and no more than maxClaimLogBytes is read. torn reports that what was
// read does not end with a whole line. A symlink or anything else that
// is not a regular file is not read (nor waited on, for a FIFO): the
// error wraps errClaimLogKind.
func readClaimLog(path string) (counts map[string]claimed, torn bool, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]claimed{}, false, nil
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, false, fmt.Errorf("read %s: %w (symlink)", path, errClaimLogKind)
	}
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("read %s: %w (%s)", path, errClaimLogKind, typeName(fi.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxClaimLogBytes))
	if err != nil {
		return nil, false, err
	}
	return parseClaims(data), len(data) > 0 && data[len(data)-1] != '\n', nil
}

// parseClaims reads the lines of a claim log. A name is what comes
// before the line's last space: message names may hold spaces, never a
// line break (see Inbox.claim).
func parseClaims(data []byte) map[string]claimed {
	counts := map[string]claimed{}
	for len(data) > 0 {
		line, rest, ok := bytes.Cut(data, []byte{'\n'})
		if !ok {
			break // torn: its append did not finish
		}
		data = rest
		i := bytes.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		released := bytes.HasSuffix(line, []byte(releasedMark))
		if released {
			line = line[:len(line)-len(releasedMark)]
			if i = bytes.LastIndexByte(line, ' '); i < 0 {
				continue
			}
		}
		name, ms := string(line[:i]), line[i+1:]
		at, err := strconv.ParseInt(string(ms), 10, 64)
		if err != nil || classify(name) != entryMessage || filepath.Base(name) != name {
			continue
		}
		c := counts[name]
		if released {
			// A release follows the hand-out it releases, and never makes a
			// claim of its own.
			if c.released < c.n {
				c.released++
				counts[name] = c
			}
			continue
		}
		c.n++
		c.at = time.UnixMilli(at)
		counts[name] = c
	}
	return counts
}

// claimedNames returns the names the claim log of agent lists (see
// claimsName): those of its files in inbox/ are claimed. It is nil when
// none is or the log cannot be read.
func (s *Store) claimedNames(agent string) map[string]claimed {
	counts, _, err := readClaimLog(filepath.Join(s.root, agent, stateDir, claimsName))
	if err != nil || len(counts) == 0 {
		return nil
	}
	return counts
}

// Claim is a message that an agent's receiver claimed (handed out to its
// agent) and has not settled, as the claim log records it.
type Claim struct {
	Name     string    // the message file, in <agent>/inbox/
	At       time.Time // when it was last handed out
	HandOuts int       // how often it was handed out
}

// Claims returns the messages of agent under the mailbox root that its
// receiver claimed and that are still in its inbox/, in name order. It
// reads the claim log only (no lock), as a tool beside a running agent
// does.
func Claims(root, agent string) ([]Claim, error) {
	if err := envelope.ValidateAgentID(agent); err != nil {
		return nil, err
	}
	counts, _, err := readClaimLog(filepath.Join(root, agent, stateDir, claimsName))
	if err != nil {
		return nil, err
	}
	var out []Claim
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		if exists(filepath.Join(root, agent, inboxDir, name)) {
			out = append(out, Claim{Name: name, At: counts[name].at, HandOuts: counts[name].n})
		}
	}
	return out, nil
}
