package fsstore

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
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
