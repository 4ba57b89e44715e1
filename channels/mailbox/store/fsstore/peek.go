package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

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
