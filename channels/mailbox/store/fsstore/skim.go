package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.Skimmer = (*Store)(nil)

// Skim implements driver.Skimmer: it lists the message files of each
// agent's inbox/, claimed/, processed/ and archive/ as Browse does, and
// takes each one's summary from the store's index (see Options.IndexDir),
// reading only the files the index does not know yet. A file in inbox/
// that the agent's receiver claimed is in BoxClaimed. It holds one
// agent's list of file names at a time, and one record of the index:
// never every summary. The index of an agent is brought up to date as a
// side effect, and only when the whole mailbox was listed. Without an
// index, or with one that cannot be read, every file is read.
func (s *Store) Skim(ctx context.Context, agents []string, fn func(driver.Skimmed) bool) error {
	if agents == nil {
		var err error
		if agents, err = s.Agents(); err != nil {
			return err
		}
	}
	var l mailboxListing // its memory serves every agent in turn
	for _, agent := range agents {
		if _, err := s.agentDir(agent); err != nil {
			return err
		}
		l.reset()
		more, err := s.skimAgent(ctx, agent, &l, fn)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

// skimAgent skims one agent's mailbox: it lists the mailbox, streams the
// index, then reads the files the index did not know.
func (s *Store) skimAgent(ctx context.Context, agent string, l *mailboxListing, fn func(driver.Skimmed) bool) (bool, error) {
	path := s.indexPath(agent)
	old, damaged := s.openIndex(path)
	if old != nil {
		defer old.close()
		l.reserve(old.r.records, old.r.nameBytes, old.size)
	}
	for _, b := range browseBoxes {
		if _, err := s.listBox(ctx, agent, b.dir, b.box, func(dir string, name []byte) bool {
			if n := len(l.dirs); n == 0 || l.dirs[n-1].rel != dir {
				l.dirs = append(l.dirs, listedDir{rel: dir, box: b.box})
			}
			l.add(len(l.dirs)-1, name)
			return true
		}); err != nil {
			return false, err
		}
	}
	claimed := s.claimedNames(agent)
	boxAt := func(i int) driver.Box {
		box := l.dirs[l.files[i].dir].box
		if box == driver.BoxInbox && claimed[string(l.nameBytes(i))].n > 0 { // no copy made
			return driver.BoxClaimed
		}
		return box
	}
	emit := func(i int, sum driver.Summary) bool {
		return fn(driver.Skimmed{Summary: sum, Agent: agent, Box: boxAt(i), Ref: l.ref(i)})
	}
	changed := damaged
	if old != nil {
		for {
			if old.read%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return false, err
				}
			}
			name, sum, err := old.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				s.opts.Logger.Debug("index of message summaries damaged; rebuilding it", "file", path, "err", err)
				changed = true
				break
			}
			i, ok := l.match(name)
			if !ok { // its file is gone
				old.drop()
				changed = true
				continue
			}
			if !emit(i, sum) {
				return false, nil
			}
		}
	}
	var fresh []byte
	for i := range l.files {
		if l.files[i].found {
			continue
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		sk := driver.Skimmed{Agent: agent, Box: boxAt(i), Ref: l.ref(i)}
		msg, err := readMessage(filepath.Join(s.root, sk.Ref), s.opts.MaxMessageBytes)
		if errors.Is(err, fs.ErrNotExist) {
			msg, err = s.readMovedOn(ctx, agent, l.name(i), &sk)
		}
		if err != nil {
			continue // unreadable, or gone: skipped, as Browse does
		}
		sk.Summary = driver.Summarize(msg)
		if path != "" {
			fresh = appendIndexRecord(fresh, l.name(i), &sk.Summary)
			changed = true
		}
		if !fn(sk) {
			return false, nil
		}
	}
	if changed && path != "" {
		s.rewriteIndex(path, l, old, fresh)
	}
	return true, nil
}

// movedOn are the folders a receiver moves a message into from each box
// (claimed, then acknowledged), in that order; from each of them a sweep
// or a prune may move it on into archive/ (see findArchived).
var movedOn = map[driver.Box][]struct {
	dir string
	box driver.Box
}{
	driver.BoxInbox:   {{claimedDir, driver.BoxClaimed}, {processedDir, driver.BoxProcessed}},
	driver.BoxClaimed: {{processedDir, driver.BoxProcessed}},
}

// readMovedOn reads the message file name of agent that was listed in
// sk's box but moved on before it was read (a receiver claimed it,
// acknowledged it, or archived it with its task): it looks in the folders
// it moves into, in the order it moves, and last in archive/, and sets
// sk's Box and Ref to where it was found. As the folders are listed in
// that order too, a message on its way while the mailbox is skimmed is
// never missed: listed in a folder it has left, it is read where it went.
func (s *Store) readMovedOn(ctx context.Context, agent, name string, sk *driver.Skimmed) (*envelope.Message, error) {
	err := fs.ErrNotExist
	for _, next := range movedOn[sk.Box] {
		ref := agent + string(filepath.Separator) + next.dir + string(filepath.Separator) + name
		var msg *envelope.Message
		if msg, err = readMessage(filepath.Join(s.root, ref), s.opts.MaxMessageBytes); err == nil {
			sk.Box, sk.Ref = next.box, ref
			return msg, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if sk.Box == driver.BoxArchive {
		return nil, err // archived messages move no further
	}
	ref, err := s.findArchived(ctx, agent, name)
	if err != nil {
		return nil, err
	}
	msg, err := readMessage(filepath.Join(s.root, ref), s.opts.MaxMessageBytes)
	if err == nil {
		sk.Box, sk.Ref = driver.BoxArchive, ref
	}
	return msg, err
}

// findArchived returns the path under the root of agent's archived message
// file name (in archive/ or one of its sub-folders), or an error wrapping
// fs.ErrNotExist when there is none.
func (s *Store) findArchived(ctx context.Context, agent, name string) (string, error) {
	var found string
	more, err := s.listBox(ctx, agent, archiveDir, driver.BoxArchive, func(dir string, file []byte) bool {
		if string(file) == name {
			found = dir + string(filepath.Separator) + name
		}
		return found == ""
	})
	if err != nil && more {
		return "", err
	}
	if found == "" {
		return "", fmt.Errorf("%s of %s: %w", name, agent, fs.ErrNotExist)
	}
	return found, nil
}

// listBox calls fn with the folder under the root and the name of each
// message file in <root>/<agent>/<sub> (and, for archive/, its
// sub-folders), in no particular order, without reading them. It reports
// false when fn did. Folders that are missing, unreadable or symlinks
// are skipped.
func (s *Store) listBox(ctx context.Context, agent, sub string, box driver.Box, fn func(dir string, name []byte) bool) (bool, error) {
	rel := agent + string(filepath.Separator) + sub
	if err := checkDir(filepath.Join(s.root, rel)); err != nil {
		return true, nil // missing, or not a real folder: nothing to read there
	}
	return s.listDir(ctx, rel, box == driver.BoxArchive, fn)
}

// listDir is listBox for the folder rel under the root, going down into
// its sub-folders when deep.
func (s *Store) listDir(ctx context.Context, rel string, deep bool, fn func(dir string, name []byte) bool) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	var subs []string
	more := true
	err := eachDirent(filepath.Join(s.root, rel), func(name []byte, kind direntKind) {
		switch {
		case !more:
		case kind == direntDir:
			if deep {
				subs = append(subs, rel+string(filepath.Separator)+string(name))
			}
		case kind == direntFile && isMessageName(name):
			more = fn(rel, name)
		}
	})
	if err != nil || !more {
		return more, nil // an unreadable folder: skip what is in it
	}
	for _, sub := range subs {
		if more, err := s.listDir(ctx, sub, true, fn); err != nil || !more {
			return more, err
		}
	}
	return true, nil
}

// Fetch implements driver.Skimmer: it reads the message at sk.Ref, or,
// when it has moved on, finds the file of the same name in the agent's
// other folders (a message only ever moves within its agent's mailbox,
// and keeps its name).
func (s *Store) Fetch(ctx context.Context, sk driver.Skimmed) (driver.Stored, error) {
	if err := s.checkOpen(); err != nil {
		return driver.Stored{}, err
	}
	dir, err := s.agentDir(sk.Agent)
	if err != nil {
		return driver.Stored{}, err
	}
	name := filepath.Base(sk.Ref)
	if !strings.HasPrefix(filepath.Clean(filepath.Join(s.root, sk.Ref)), dir+string(filepath.Separator)) || classify(name) != entryMessage {
		return driver.Stored{}, fmt.Errorf("fetch %s: not a message of %s", sk.Ref, sk.Agent)
	}
	try := func(rel string, box driver.Box) (driver.Stored, bool, error) {
		msg, err := readMessage(filepath.Join(s.root, rel), s.opts.MaxMessageBytes)
		if errors.Is(err, fs.ErrNotExist) {
			return driver.Stored{}, false, nil
		}
		if err != nil {
			return driver.Stored{}, false, fmt.Errorf("fetch %s: %w", rel, err)
		}
		return driver.Stored{Message: msg, Agent: sk.Agent, Box: box, Ref: rel}, true, nil
	}
	if st, ok, err := try(sk.Ref, sk.Box); ok || err != nil {
		return st, err
	}
	for _, b := range browseBoxes {
		if b.box == driver.BoxArchive {
			continue
		}
		if st, ok, err := try(filepath.Join(sk.Agent, b.dir, name), b.box); ok || err != nil {
			return st, err
		}
	}
	if found, err := s.findArchived(ctx, sk.Agent, name); err == nil {
		if st, ok, err := try(found, driver.BoxArchive); ok || err != nil {
			return st, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return driver.Stored{}, err
	}
	return driver.Stored{}, fmt.Errorf("fetch %s: %w", sk.Ref, fs.ErrNotExist)
}
