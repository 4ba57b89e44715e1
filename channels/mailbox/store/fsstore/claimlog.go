package fsstore

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
// (see countAttempt). A claim costs one small append instead of a rename
// between two folders, which the kernel serialises across the file
// system. Appends are not synced, as the renames into claimed/ were not:
// a machine crash that undoes one leaves the message waiting as if never
// taken. The leading dot keeps the name apart from every state key
// (store.CheckStateKey).
const claimsName = ".claims"

// claimLogCompactAt is the size past which the owner rewrites the log
// with the claims still open (or empties it when none is), so the log
// stays small however many messages go through.
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
}

// openClaimLog opens (creating) the claim log at path and returns it with
// the names it lists and how often each.
func openClaimLog(path string) (*claimLog, map[string]claimed, error) {
	counts, err := readClaimLog(path)
	if err != nil {
		return nil, nil, err
	}
	l := &claimLog{path: path}
	if err := l.open(); err != nil {
		return nil, nil, err
	}
	return l, counts, nil
}

func (l *claimLog) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.size = f, fi.Size()
	return nil
}

// add appends the claim of name at, in one write: the claim is recorded
// before the message is handed out. sync also makes it durable.
func (l *claimLog) add(name string, at time.Time, sync bool) error {
	n, err := l.f.Write(appendClaim(make([]byte, 0, len(name)+16), name, at))
	l.size += int64(n)
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

// rewrite replaces the log with open (each claim's hand-outs, the last at
// its time), atomically, or empties it when open is empty.
func (l *claimLog) rewrite(open map[string]claimed) error {
	if len(open) == 0 {
		if err := l.f.Truncate(0); err != nil {
			return err
		}
		l.size = 0
		return nil
	}
	var b []byte
	for _, name := range slices.Sorted(maps.Keys(open)) {
		for range max(open[name].n, 1) {
			b = appendClaim(b, name, open[name].at)
		}
	}
	if err := writeFileAtomic(l.path, b, false); err != nil {
		return err
	}
	old := l.f
	if err := l.open(); err != nil {
		return err // old keeps appending to the file the rename replaced: claims go unrecorded, not wrong
	}
	return old.Close()
}

func (l *claimLog) close() error { return l.f.Close() }

// claimed is what the claim log says of a message: how often it was
// handed out and when last.
type claimed struct {
	n  int
	at time.Time
}

// readClaimLog returns the message names the claim log at path lists,
// with how often and when last each was handed out; a missing log lists
// none. Lines that are not claims (a torn last line, damage) are skipped,
// and no more than maxClaimLogBytes is read.
func readClaimLog(path string) (map[string]claimed, error) {
	counts := map[string]claimed{}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return counts, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxClaimLogBytes))
	if err != nil {
		return nil, err
	}
	for len(data) > 0 {
		line, rest, ok := bytes.Cut(data, []byte{'\n'})
		if !ok {
			break // torn: its append did not finish
		}
		data = rest
		name, ms, _ := bytes.Cut(line, []byte{' '})
		at, err := strconv.ParseInt(string(ms), 10, 64)
		if err != nil || classify(string(name)) != entryMessage || filepath.Base(string(name)) != string(name) {
			continue
		}
		c := counts[string(name)]
		c.n++
		c.at = time.UnixMilli(at)
		counts[string(name)] = c
	}
	return counts, nil
}

// claimedNames returns the names the claim log of agent lists (see
// claimsName): those of its files in inbox/ are claimed. It is nil when
// none is or the log cannot be read.
func (s *Store) claimedNames(agent string) map[string]claimed {
	counts, err := readClaimLog(filepath.Join(s.root, agent, stateDir, claimsName))
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
	counts, err := readClaimLog(filepath.Join(root, agent, stateDir, claimsName))
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
