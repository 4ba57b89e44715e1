package fsstore

import (
	"os"

	"github.com/fsnotify/fsnotify"
)

// WatchEnv is the environment variable that chooses how a process
// watches the folders of a mailbox root:
//
//	shared  (the default) the processes of a root share one watcher: the
//	        first to need one watches for all, over <root>/_watch.sock
//	        (watch_share.go); the others hold no inotify instance
//	local   each process holds its own watcher (one inotify instance);
//	        without one, the rescan every pollInterval is all there is
//	poll    this process never makes an inotify instance: it shares the
//	        root's watcher where another process holds it, and when it
//	        watches for the root itself it polls the folders every
//	        sharedPollEvery
//
// Any other value is the default.
const WatchEnv = "SWITCHBOARD_WATCH"

// watchMode is a value of WatchEnv.
type watchMode int

const (
	watchShared watchMode = iota
	watchLocal
	watchPoll
)

// watchModeFromEnv reads WatchEnv.
func watchModeFromEnv() watchMode {
	switch os.Getenv(WatchEnv) {
	case "local":
		return watchLocal
	case "poll":
		return watchPoll
	}
	return watchShared
}

// localSource is the process's own watcher.
type localSource interface {
	source
	// close stops it; it must not wait for the hub's lock.
	close()
}

// localSrc returns the process's own watcher, making it if needed: an
// fsnotify watcher, or (when none can be made, or in poll mode, except in
// local mode where that is an error) a poller.
func (h *watchHub) localSrc() (source, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.local != nil {
		return h.local, nil
	}
	if h.mode != watchPoll {
		fw, err := h.newWatcher()
		if err == nil {
			h.local = newFsnotifySource(h, fw)
			return h.local, nil
		}
		if h.mode == watchLocal {
			return nil, err
		}
		if h.log != nil {
			h.log.Warn("fsnotify unavailable; watching the mailbox folders by polling them instead",
				"every", sharedPollEvery, "err", err)
		}
	}
	h.local = newPollSource(h, sharedPollEvery)
	return h.local, nil
}

// noteAdded counts a folder added to src. h.mu is held.
func (h *watchHub) noteAdded(src source) {
	if h.local != nil && src == source(h.local) {
		h.nlocal++
	}
}

// noteRemoved counts a folder removed from src, and closes the process's
// own watcher when it watches nothing. h.mu is held.
func (h *watchHub) noteRemoved(src source) {
	if h.local != nil && src == source(h.local) {
		h.nlocal--
	}
	h.closeLocalIfIdle()
}

// closeLocalIfIdle closes the process's own watcher when it watches no
// folder. h.mu is held.
func (h *watchHub) closeLocalIfIdle() {
	if h.local != nil && h.nlocal == 0 && h.adding == 0 {
		h.local.close()
		h.local = nil
	}
}

// fsnotifySource is an fsnotify watcher handing its events to the hub.
type fsnotifySource struct {
	h  *watchHub
	fw *fsnotify.Watcher
}

func newFsnotifySource(h *watchHub, fw *fsnotify.Watcher) *fsnotifySource {
	s := &fsnotifySource{h: h, fw: fw}
	go s.run()
	return s
}

func (s *fsnotifySource) add(dir string) error   { return s.fw.Add(dir) }
func (s *fsnotifySource) readd(dir string) error { return s.fw.Add(dir) }
func (s *fsnotifySource) remove(dir string)      { _ = s.fw.Remove(dir) }

// close closes the watcher. It is called with the hub's lock held:
// fsnotify's Close waits for its reader goroutine, which gives up sending
// once the watcher is closing and never waits for the hub's lock; run,
// which does wait for it, needs nothing more from this watcher.
func (s *fsnotifySource) close() { _ = s.fw.Close() }

// run hands the watcher's events and errors to the hub until it is
// closed.
func (s *fsnotifySource) run() {
	events, errs := s.fw.Events, s.fw.Errors
	for events != nil || errs != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			s.h.dispatch(s, ev)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			s.h.broadcast(s, err)
		}
	}
}
