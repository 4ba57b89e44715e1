package fsstore

import (
	"bytes"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/fileinfo"
)

var _ driver.Browser = (*Store)(nil)

// browseBoxes are the folders of an agent that hold whole messages, and
// the Box each one is.
var browseBoxes = []struct {
	dir string
	box driver.Box
}{
	{inboxDir, driver.BoxInbox}, {claimedDir, driver.BoxClaimed},
	{processedDir, driver.BoxProcessed}, {archiveDir, driver.BoxArchive},
}

// Browse implements driver.Browser: it reads every message file in every
// agent's inbox/, claimed/, processed/ and archive/ (with its sub-folders:
// by-task/<task>/, orphan/), read only. Ref is the path under the root.
// A file in inbox/ that the agent's receiver claimed (its claim log lists
// it) is in BoxClaimed.
// Files that cannot be read are skipped; symlinks are never followed.
func (s *Store) Browse(ctx context.Context, fn func(driver.Stored) bool) error {
	agents, err := s.Agents()
	if err != nil {
		return err
	}
	for _, agent := range agents {
		claimed := s.claimedNames(agent)
		for _, b := range browseBoxes {
			more, err := s.browseDir(ctx, agent, b.dir, b.box, claimed, fn)
			if err != nil || !more {
				return err
			}
		}
	}
	return nil
}

// browseDir walks <root>/<agent>/<sub> and reports its messages, those
// of inbox/ named in claimed as BoxClaimed.
func (s *Store) browseDir(ctx context.Context, agent, sub string, box driver.Box, claimed map[string]claimed, fn func(driver.Stored) bool) (bool, error) {
	dir := filepath.Join(s.root, agent, sub)
	if err := checkDir(dir); err != nil {
		return true, nil // missing, or not a real folder: nothing to read there
	}
	stop := errors.New("stop")
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder: skip what is in it
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() {
			if path != dir && box != driver.BoxArchive {
				return fs.SkipDir // only archive/ has sub-folders
			}
			return nil
		}
		if !e.Type().IsRegular() || classify(e.Name()) != entryMessage {
			return nil
		}
		msg, err := readMessage(path, s.opts.MaxMessageBytes)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(s.root, path)
		if !fn(driver.Stored{Message: msg, Agent: agent, Box: boxOf(box, e.Name(), claimed), Ref: rel}) {
			return stop
		}
		return nil
	})
	if errors.Is(err, stop) {
		return false, nil
	}
	return err == nil, err
}

// boxOf is the box of the message file name listed in box: BoxClaimed
// for a file in inbox/ named in claimed (Store.claimedNames).
func boxOf(box driver.Box, name string, claimed map[string]claimed) driver.Box {
	if box == driver.BoxInbox && claimed[name].n > 0 {
		return driver.BoxClaimed
	}
	return box
}

// HasInbox reports whether agentID has an inbox folder in the tree,
// registered or not.
func (s *Store) HasInbox(agentID string) (string, bool, error) {
	return s.existingInbox(agentID)
}

// peekBatch is how many names Pending holds per pass over the folder.
const peekBatch = 8192

// The read-only helpers below are for the command line and tools: they
// claim, move and create nothing, and never follow a symlink.

// Pending calls fn for each message file waiting in agentID's inbox, in
// file-name order (oldest first), without claiming it (those its receiver
// claimed are not waiting, see claimsName), until fn returns
// false or ctx ends. When a file cannot be read or decoded, msg is nil and
// err says why (the receiver will quarantine it). An agent without an inbox
// has nothing pending. Memory stays bounded however long the inbox is.
func (s *Store) Pending(ctx context.Context, agentID string, fn func(name string, msg *envelope.Message, err error) bool) error {
	inbox, ok, err := s.existingInbox(agentID)
	if err != nil || !ok {
		return err
	}
	claimed := s.claimedNames(agentID)
	skip := func(name string) bool { return claimed[name].n > 0 }
	after := ""
	for {
		sc, err := scanDir(inbox, peekBatch, after, skip)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("list inbox of %q: %w", agentID, err)
		}
		if len(sc.names) == 0 {
			return nil
		}
		for _, name := range sc.names {
			if err := ctx.Err(); err != nil {
				return err
			}
			msg, err := readMessage(filepath.Join(inbox, name), s.opts.MaxMessageBytes)
			if errors.Is(err, fs.ErrNotExist) {
				continue // handled meanwhile
			}
			if !fn(name, msg, err) {
				return nil
			}
		}
		after = sc.names[len(sc.names)-1]
	}
}

// Depth returns how many message files wait in agentID's inbox, not
// counting those its receiver claimed (0 for an agent without one).
func (s *Store) Depth(agentID string) (int, error) {
	inbox, ok, err := s.existingInbox(agentID)
	if err != nil || !ok {
		return 0, err
	}
	claimed := s.claimedNames(agentID)
	n := 0
	err = eachEntry(inbox, func(e fs.DirEntry) {
		if classify(e.Name()) == entryMessage && claimed[e.Name()].n == 0 {
			n++
		}
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("count inbox of %q: %w", agentID, err)
	}
	return n, nil
}

// Agents returns the names of the folders under the root that are valid
// agent ids (so not _registry.json and the like), sorted. Symlinks are
// left out.
func (s *Store) Agents() ([]string, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	var out []string
	err := eachEntry(s.root, func(e fs.DirEntry) {
		if e.IsDir() && envelope.ValidateAgentID(e.Name()) == nil {
			out = append(out, e.Name())
		}
	})
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	slices.Sort(out)
	return out, nil
}

// existingInbox returns agentID's inbox folder, or ok false if it does not
// exist. An agent folder or inbox that is a symlink is an error.
func (s *Store) existingInbox(agentID string) (path string, ok bool, err error) {
	if err := s.checkOpen(); err != nil {
		return "", false, err
	}
	dir, err := s.agentDir(agentID)
	if err != nil {
		return "", false, err
	}
	inbox := filepath.Join(dir, inboxDir)
	for _, p := range []string{dir, inbox} {
		if err := checkDir(p); errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		} else if err != nil {
			return "", false, err
		}
	}
	return inbox, true, nil
}

// eachEntry streams the entries of dir to fn.
func eachEntry(dir string, fn func(fs.DirEntry)) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		ents, err := f.ReadDir(readDirChunk)
		for _, e := range ents {
			fn(e)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// readDirChunk is how many entries a listing reads from a folder at a time.
const readDirChunk = 512

// scan is one pass over a folder that keeps only the k smallest message
// names greater than after, so memory stays bounded however many files are
// waiting, and the names of up to k foreign entries (to quarantine).
type scan struct {
	names   []string // message names, ascending
	foreign []string // names that are neither messages nor writes in progress
	more    bool     // foreign was cut at k
	total   int      // message names in the folder (after or not)
}

// scanDir streams dir (eachDirent: no allocation per entry), never
// holding the whole listing. Message names for which skip (if not nil)
// reports true are counted in total but not kept.
func scanDir(dir string, k int, after string, skip func(name string) bool) (scan, error) {
	var res scan
	h := &maxHeap{}
	err := eachDirent(dir, func(b []byte, _ direntKind) {
		switch {
		case isMessageName(b):
			res.total++
			// Compared without a copy; only a name the heap keeps is made a string.
			if string(b) <= after || h.Len() >= k && string(b) >= (*h)[0] {
				return
			}
			if name := string(b); skip == nil || !skip(name) {
				h.offer(name, k)
			}
		case bytes.HasSuffix(b, []byte(tmpSuffix)):
		case len(res.foreign) < k:
			res.foreign = append(res.foreign, string(b))
		default:
			res.more = true
		}
	})
	res.names = []string(*h)
	slices.Sort(res.names)
	return res, err
}

// maxHeap holds the k smallest names seen; the largest is at the top so it
// can be replaced by a smaller newcomer.
type maxHeap []string

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i] > h[j] }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(string)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// offer keeps name if it is among the k smallest seen so far.
func (h *maxHeap) offer(name string, k int) {
	switch {
	case h.Len() < k:
		heap.Push(h, name)
	case name < (*h)[0]:
		(*h)[0] = name
		heap.Fix(h, 0)
	}
}

// extraLinks returns why the message file dir/name cannot be used because
// it has more than one link, or "" when it has one. A file linked from
// elsewhere may be a file outside the tree: reading it would leak it and
// repairing it (doctor --fix) would change it, so it is refused. One
// second link is expected: the sender's staging file in the agent's tmp/,
// which a sender removes right after linking. A young one is left to its
// sender; an old one (the sender died) is dropped here (dropStaging,
// which logs the "sent" line the sender could not).
func (in *Inbox) extraLinks(dir, name string) string {
	path := filepath.Join(dir, name)
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fileinfo.Links(fi) <= 1 {
		return "" // readMessage reports a missing or odd file (a folder has several links)
	}
	young := in.settleStagingTwins(fi)
	if fi, err = os.Lstat(path); err != nil {
		return ""
	}
	if n := fileinfo.Links(fi); n > 1+uint64(young) {
		return fmt.Sprintf("hard link (%d links): a message file must have one link; another may be a file outside the mailbox", n)
	}
	return ""
}

// settleStagingTwins drops the staging files of the agent's tmp/ that are
// the file fi describes and older than stagingMaxAge, and returns how many
// younger ones are still there.
func (in *Inbox) settleStagingTwins(fi fs.FileInfo) (young int) {
	tmp := filepath.Join(in.dir, tmpDir)
	cutoff := in.s.opts.Now().Add(-stagingMaxAge)
	err := eachEntry(tmp, func(e fs.DirEntry) {
		if classify(e.Name()) != entryWriting || !e.Type().IsRegular() {
			return
		}
		sfi, err := e.Info()
		if err != nil || !os.SameFile(fi, sfi) {
			return
		}
		if sfi.ModTime().Before(cutoff) {
			in.dropStaging(tmp, e.Name(), sfi)
		} else {
			young++
		}
	})
	if err != nil {
		in.log.Warn("look for a staging file", "err", err)
	}
	return young
}
