package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// watchSeen bounds the memory Watch uses to report each file once.
const watchSeen = 4096

// Watch calls fn for each message file that appears in agentID's inbox,
// or in every agent's inbox when agentID is "" (including agents whose
// folders appear while watching), until ctx ends; then it returns nil.
// It claims nothing. name is the file's path relative to the root
// ("coder/inbox/X.msg.json"); msg is nil when the file cannot be read or
// decoded. A file the receiver claimed before Watch could read it is read
// from claimed/ or processed/. fn runs on the caller's goroutine. Files
// that arrive while the kernel's event queue overflows are not reported.
func (s *Store) Watch(ctx context.Context, agentID string, fn func(name string, msg *envelope.Message)) error {
	return s.watch(ctx, agentID, fn, nil)
}

// WatchReady is Watch, calling ready (if not nil) once the watches are
// set: every file that arrives after ready is called is reported.
func (s *Store) WatchReady(ctx context.Context, agentID string, fn func(name string, msg *envelope.Message), ready func()) error {
	return s.watch(ctx, agentID, fn, ready)
}

// watch is Watch, calling ready (if not nil) once the watches are set.
func (s *Store) watch(ctx context.Context, agentID string, fn func(string, *envelope.Message), ready func()) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if agentID != "" {
		if err := envelope.ValidateAgentID(agentID); err != nil {
			return err
		}
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer fw.Close()
	w := &follower{s: s, fw: fw, only: agentID, fn: fn, seen: newRecentSet(watchSeen)}
	if err := fw.Add(s.root); err != nil {
		return fmt.Errorf("watch %s: %w", s.root, err)
	}
	agents := []string{agentID}
	if agentID == "" {
		if agents, err = s.Agents(); err != nil {
			return err
		}
	}
	for _, a := range agents {
		w.addAgent(a, false)
	}
	if ready != nil {
		ready()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return nil
			}
			w.handle(ev)
		case err, ok := <-fw.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				s.opts.Logger.Warn("watch: event queue overflowed; some new messages were not reported")
			} else {
				s.opts.Logger.Warn("watch: fsnotify error", "err", err)
			}
		}
	}
}

// follower is the state of one Watch.
type follower struct {
	s    *Store
	fw   *fsnotify.Watcher
	only string // "" = every agent
	fn   func(string, *envelope.Message)
	seen *recentSet
}

// addAgent watches an agent's folder (to see its inbox appear) and inbox.
// fresh reports a folder that appeared while watching: the files already
// in its inbox are new, so they are reported.
func (w *follower) addAgent(agent string, fresh bool) {
	dir := filepath.Join(w.s.root, agent)
	if checkDir(dir) != nil || w.fw.Add(dir) != nil {
		return
	}
	w.addInbox(agent, fresh)
}

func (w *follower) addInbox(agent string, fresh bool) {
	inbox := filepath.Join(w.s.root, agent, inboxDir)
	if checkDir(inbox) != nil || w.fw.Add(inbox) != nil || !fresh {
		return
	}
	_ = eachEntry(inbox, func(e fs.DirEntry) {
		if classify(e.Name()) == entryMessage {
			w.report(agent, e.Name())
		}
	})
}

// handle follows the tree: new agent folders, new inboxes, new files.
func (w *follower) handle(ev fsnotify.Event) {
	if !ev.Has(fsnotify.Create) {
		return
	}
	rel, err := filepath.Rel(w.s.root, ev.Name)
	if err != nil {
		return
	}
	parts := strings.Split(rel, string(filepath.Separator))
	agent := parts[0]
	if (w.only != "" && agent != w.only) || envelope.ValidateAgentID(agent) != nil {
		return
	}
	switch {
	case len(parts) == 1:
		w.addAgent(agent, true)
	case len(parts) == 2 && parts[1] == inboxDir:
		w.addInbox(agent, true)
	case len(parts) == 3 && parts[1] == inboxDir && classify(parts[2]) == entryMessage:
		w.report(agent, parts[2])
	}
}

// report reads a new file (from wherever the receiver has moved it) and
// passes it to fn once.
func (w *follower) report(agent, name string) {
	rel := filepath.Join(agent, inboxDir, name)
	if !w.seen.add(rel) {
		return
	}
	var msg *envelope.Message
	for _, sub := range []string{inboxDir, claimedDir, processedDir} {
		m, err := readMessage(filepath.Join(w.s.root, agent, sub, name), w.s.opts.MaxMessageBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			msg = m
		}
		break
	}
	w.fn(rel, msg)
}

// recentSet remembers the last n strings added.
type recentSet struct {
	ring []string
	next int
	set  map[string]struct{}
}

func newRecentSet(n int) *recentSet {
	return &recentSet{ring: make([]string, n), set: make(map[string]struct{}, n)}
}

// add records s and reports whether it was new.
func (r *recentSet) add(s string) bool {
	if _, ok := r.set[s]; ok {
		return false
	}
	delete(r.set, r.ring[r.next])
	r.ring[r.next] = s
	r.next = (r.next + 1) % len(r.ring)
	r.set[s] = struct{}{}
	return true
}
