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

// claimed is what the claim log says of a message: how often it was
// handed out and when last.
type claimed struct {
	n  int
	at time.Time
	// moved: the message is in claimed/, where its first hand-out put it
	// without a line in the log (see countAttempt), so the log lists it
	// one time fewer than n.
	moved bool
}

// lines is how many lines the log holds for c.
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
		name, ms := string(line[:i]), line[i+1:]
		at, err := strconv.ParseInt(string(ms), 10, 64)
		if err != nil || classify(name) != entryMessage || filepath.Base(name) != name {
			continue
		}
		c := counts[name]
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
