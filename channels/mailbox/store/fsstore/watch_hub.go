package fsstore

import (
	"errors"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// processHub is the one fsnotify watcher of this process, shared by every
// Store, Inbox and Watch: on Linux each watcher is an inotify instance, of
// which a user has 128 by default, so a watcher per inbox would run out
// from the 65th agent on one machine.
var processHub = newWatchHub(fsnotify.NewWatcher)

// subscriber receives what the hub sees in the folders it subscribed to.
// Both methods run on the hub's goroutine and must not block.
type subscriber interface {
	// event is a change in one of the subscriber's folders.
	event(ev fsnotify.Event)
	// rescan says that events may have been lost (the kernel's queue
	// overflowed, or the watcher failed): look at the folders again.
	rescan(err error)
}

// watchHub multiplexes one fsnotify watcher to many subscribers, each
// watching some folders. It holds the watcher only while some folder is
// watched, and each folder is added to the watcher once, however many
// subscribers it has.
type watchHub struct {
	newWatcher func() (*fsnotify.Watcher, error)

	mu   sync.Mutex
	fw   *fsnotify.Watcher              // nil while nothing is watched
	subs map[string]map[subscriber]bool // folder → its subscribers
	log  *slog.Logger                   // the last subscriber's, for the hub's own warnings
}

func newWatchHub(newWatcher func() (*fsnotify.Watcher, error)) *watchHub {
	return &watchHub{newWatcher: newWatcher, subs: map[string]map[subscriber]bool{}}
}

// add makes s receive the events of folder dir. It fails, changing
// nothing, when no watcher can be made or dir cannot be watched (it is
// missing, or the system's limit on watches is reached).
func (h *watchHub) add(dir string, s subscriber, log *slog.Logger) error {
	dir = filepath.Clean(dir)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fw == nil {
		fw, err := h.newWatcher()
		if err != nil {
			return err
		}
		h.fw = fw
		go h.run(fw)
	}
	h.log = log
	if len(h.subs[dir]) == 0 {
		if err := h.fw.Add(dir); err != nil {
			h.closeIfIdle()
			return err
		}
		h.subs[dir] = map[subscriber]bool{}
	}
	h.subs[dir][s] = true
	return nil
}

// readd watches dir again after it was removed and created anew (the
// kernel drops the watch of a removed folder), for its subscribers.
func (h *watchHub) readd(dir string) error {
	dir = filepath.Clean(dir)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fw == nil || len(h.subs[dir]) == 0 {
		return errors.New("folder not watched")
	}
	return h.fw.Add(dir)
}

// remove stops s receiving the events of dir. The last subscriber of a
// folder removes its watch, and the last of all closes the watcher.
func (h *watchHub) remove(dir string, s subscriber) {
	dir = filepath.Clean(dir)
	h.mu.Lock()
	defer h.mu.Unlock()
	subs := h.subs[dir]
	if !subs[s] {
		return
	}
	delete(subs, s)
	if len(subs) == 0 {
		delete(h.subs, dir)
		_ = h.fw.Remove(dir) // fails when the folder is gone, and so is its watch
	}
	h.closeIfIdle()
}

// closeIfIdle closes the watcher when no folder is watched. h.mu is held:
// fsnotify's Close waits for its reader goroutine, which gives up sending
// once the watcher is closing and never waits for h.mu; run, which does
// wait for h.mu, needs nothing more from this watcher.
func (h *watchHub) closeIfIdle() {
	if len(h.subs) > 0 || h.fw == nil {
		return
	}
	_ = h.fw.Close()
	h.fw = nil
}

// run hands fw's events to the subscribers of the folder they happen in,
// and its errors to every subscriber, until fw is closed.
func (h *watchHub) run(fw *fsnotify.Watcher) {
	events, errs := fw.Events, fw.Errors
	for events != nil || errs != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			h.dispatch(fw, ev)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			h.broadcast(fw, err)
		}
	}
}

func (h *watchHub) dispatch(fw *fsnotify.Watcher, ev fsnotify.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fw != fw {
		return // a closed watcher's last events: its subscribers are gone
	}
	for s := range h.subs[filepath.Dir(ev.Name)] {
		s.event(ev)
	}
}

func (h *watchHub) broadcast(fw *fsnotify.Watcher, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.fw != fw {
		return
	}
	if !errors.Is(err, fsnotify.ErrEventOverflow) && h.log != nil {
		h.log.Warn("fsnotify error; rescanning", "err", err)
	}
	seen := map[subscriber]bool{}
	for _, subs := range h.subs {
		for s := range subs {
			if !seen[s] {
				seen[s] = true
				s.rescan(err)
			}
		}
	}
}

// watching returns how many folders the hub watches (for tests).
func (h *watchHub) watching() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}
