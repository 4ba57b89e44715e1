package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// watchSeen bounds the memory Watch uses to report each file once.
const watchSeen = 4096

// errSetAside is why a new message file cannot be read when it left the
// inbox before Watch read it and is not in processed/ (or an older
// receiver's claimed/) either: its receiver set it aside (quarantined it).
var errSetAside = errors.New("cannot be read (set aside by its receiver)")

var _ driver.Watcher = (*Store)(nil)

// Watch implements driver.Watcher: it reports each message file that
// appears in agentID's inbox, or in every agent's inbox when agentID is ""
// (including agents whose folders appear while watching), until ctx ends.
// It claims nothing. Watched.Ref is the file's path relative to the root
// ("coder/inbox/X.msg.json"); a file the receiver acknowledged before
// Watch could read it is read from processed/ (or an older receiver's
// claimed/), and one that cannot
// be read or decoded is reported with the reason (the size cap and the
// decoder are the store's). Files that arrive while the kernel's event
// queue overflows are not reported, and w.Notice says so.
//
// The events come from the process's one fsnotify watcher. When it cannot
// watch a folder (no watcher can be made, the system's limit on watches
// is reached), Watch says so once through w.Notice and looks for new files
// every Options.PollInterval instead; a file that arrives and is claimed
// between two looks is not reported then.
func (s *Store) Watch(ctx context.Context, agentID string, w driver.WatchFuncs) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if agentID != "" {
		if err := envelope.ValidateAgentID(agentID); err != nil {
			return err
		}
	}
	notice := func(line string) {
		if w.Notice != nil {
			w.Notice(line)
		} else {
			s.opts.Logger.Warn(line)
		}
	}
	f := &follower{s: s, hub: s.watchHub(), only: agentID, fn: w.Arrived, notice: notice,
		seen: newRecentSet(watchSeen), events: make(chan fsnotify.Event, watchBuffer), lost: make(chan error, 1)}
	defer f.unsubscribe()
	if err := checkDir(s.root); err != nil {
		return fmt.Errorf("watch %s: %w", s.root, err)
	}
	f.subscribe(s.root)
	agents := []string{agentID}
	if agentID == "" {
		var err error
		if agents, err = s.Agents(); err != nil {
			return err
		}
	}
	for _, a := range agents {
		f.addAgent(a, false)
	}
	if w.Ready != nil {
		w.Ready()
	}
	for f.err == nil {
		select {
		case <-ctx.Done():
			return nil
		case ev := <-f.events:
			f.handle(ev)
		case err := <-f.lost:
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				notice("watch: event queue overflowed; some new messages were not reported")
			} else {
				notice(fmt.Sprintf("watch: fsnotify error: %v", err))
			}
		case <-f.tick():
			f.poll()
		}
	}
	return f.err
}

// watchBuffer is how many events a Watch holds for its caller; beyond
// that they are dropped and the Watch says so, rather than hold up the
// process's other watches.
const watchBuffer = 4096

// follower is the state of one Watch.
type follower struct {
	s      *Store
	hub    *watchHub
	only   string // "" = every agent
	fn     func(driver.Watched) error
	notice func(line string)
	seen   *recentSet
	err    error // the first error of fn: the watch ends

	events chan fsnotify.Event // from the hub
	lost   chan error          // events were lost: the reason, once per burst
	dirs   []string            // the folders subscribed to

	// Set once a folder cannot be watched: the follower scans instead.
	ticker *time.Ticker
	listed map[string]map[string]bool // agent → its inbox's message names at the last scan
}

// event implements subscriber; it never blocks the hub.
func (w *follower) event(ev fsnotify.Event) {
	if !ev.Has(fsnotify.Create) {
		return
	}
	select {
	case w.events <- ev:
	default:
		w.rescan(fsnotify.ErrEventOverflow)
	}
}

// readOnly makes the follower a reader: Watch writes nothing in the tree,
// so it never serves the root's shared watcher.
func (w *follower) readOnly() bool { return true }

// rescan implements subscriber: events were lost.
func (w *follower) rescan(err error) {
	select {
	case w.lost <- err:
	default:
	}
}

// subscribe watches dir, or falls back to polling when it cannot. It
// reports whether dir is there to be looked at.
func (w *follower) subscribe(dir string) bool {
	err := w.hub.add(w.s.root, dir, w, w.s.opts.Logger)
	switch {
	case err == nil:
		w.dirs = append(w.dirs, dir)
	case errors.Is(err, fs.ErrNotExist):
		return false // removed meanwhile
	default:
		w.startPolling(err)
	}
	return true
}

func (w *follower) unsubscribe() {
	for _, dir := range w.dirs {
		w.hub.remove(dir, w)
	}
	if w.ticker != nil {
		w.ticker.Stop()
	}
}

// addAgent watches an agent's folder (to see its inbox appear) and inbox.
// fresh reports a folder that appeared while watching: the files already
// in its inbox are new, so they are reported.
func (w *follower) addAgent(agent string, fresh bool) {
	dir := filepath.Join(w.s.root, agent)
	if checkDir(dir) != nil || !w.subscribe(dir) {
		return
	}
	w.addInbox(agent, fresh)
}

func (w *follower) addInbox(agent string, fresh bool) {
	inbox := filepath.Join(w.s.root, agent, inboxDir)
	if checkDir(inbox) != nil || !w.subscribe(inbox) || !fresh {
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
// passes it to fn once, with the reason when it cannot be read.
func (w *follower) report(agent, name string) {
	rel := filepath.Join(agent, inboxDir, name)
	if w.err != nil || !w.seen.add(rel) {
		return
	}
	got := driver.Watched{Ref: rel, Err: errSetAside}
	for _, sub := range []string{inboxDir, claimedDir, processedDir} {
		m, err := readMessage(filepath.Join(w.s.root, agent, sub, name), w.s.opts.MaxMessageBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		got.Message, got.Err = m, err
		break
	}
	if w.fn != nil {
		w.err = w.fn(got)
	}
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

// What a Watch does when fsnotify cannot watch a folder: it lists the
// inboxes every poll interval and reports the names that were not there
// the time before.

// startPolling switches the follower to scanning, once, with one notice.
// What waits in the inboxes now is not news.
func (w *follower) startPolling(err error) {
	if w.ticker != nil {
		return
	}
	every := w.s.opts.PollInterval
	w.notice(fmt.Sprintf("watch: fsnotify unavailable (%v); looking for new messages every %s instead", err, every))
	w.ticker = time.NewTicker(every)
	w.listed = map[string]map[string]bool{}
	for _, agent := range w.pollAgents() {
		w.listed[agent] = w.inboxNames(agent)
	}
}

// tick is the polling ticker's channel; nil (never ready) while fsnotify
// watches every folder.
func (w *follower) tick() <-chan time.Time {
	if w.ticker == nil {
		return nil
	}
	return w.ticker.C
}

// poll reports the messages that appeared since the last scan, all of an
// agent's when its folder is new.
func (w *follower) poll() {
	for _, agent := range w.pollAgents() {
		names := w.inboxNames(agent)
		before, known := w.listed[agent]
		w.listed[agent] = names
		for name := range names {
			if !known || !before[name] {
				w.report(agent, name)
			}
		}
	}
}

// pollAgents returns the agents the follower looks at.
func (w *follower) pollAgents() []string {
	if w.only != "" {
		return []string{w.only}
	}
	agents, err := w.s.Agents()
	if err != nil {
		w.s.opts.Logger.Warn("watch: cannot list the agents", "err", err)
	}
	return agents
}

// inboxNames returns the message names in agent's inbox (none when it has
// no inbox).
func (w *follower) inboxNames(agent string) map[string]bool {
	names := map[string]bool{}
	_ = eachEntry(filepath.Join(w.s.root, agent, inboxDir), func(e fs.DirEntry) {
		if classify(e.Name()) == entryMessage {
			names[e.Name()] = true
		}
	})
	return names
}
