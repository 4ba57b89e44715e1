package fsstore

import (
	"log/slog"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watcher pokes a channel whenever a folder may have gained a file: on an
// fsnotify Create, on an event overflow (which means "rescan"), and every
// poll interval as a safety net for what fsnotify misses (network file
// systems, a folder that could not be watched). The events come from the
// process's one fsnotify watcher (watchHub), however many folders are
// watched.
type watcher struct {
	hub    *watchHub
	dir    string
	notify chan<- struct{}
	quit   chan struct{}
	done   chan struct{}

	mu         sync.Mutex
	subscribed bool // the hub watches dir for us; else the rescan alone
}

// startWatcher watches dir through hub and pokes notify (without ever
// blocking on it) until stop. When dir cannot be watched (no watcher can
// be made, the system's limit on watches is reached) it says so in one
// warning and relies on the rescan every poll interval.
func startWatcher(hub *watchHub, dir string, every time.Duration, notify chan<- struct{}, log *slog.Logger) *watcher {
	w := &watcher{hub: hub, dir: dir, notify: notify, quit: make(chan struct{}), done: make(chan struct{})}
	if err := hub.add(dir, w, log); err != nil {
		log.Warn("fsnotify unavailable; new messages are noticed by the periodic rescan only",
			"dir", dir, "every", every, "err", err)
	} else {
		w.subscribed = true
	}
	go w.run(every)
	return w
}

// event implements subscriber: a new file is news.
func (w *watcher) event(ev fsnotify.Event) {
	if ev.Has(fsnotify.Create) {
		w.poke()
	}
}

// rescan implements subscriber: lost events mean "look again".
func (w *watcher) rescan(error) { w.poke() }

func (w *watcher) poke() {
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// run pokes notify at each tick, until quit.
func (w *watcher) run(every time.Duration) {
	defer close(w.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-tick.C:
			w.poke()
		}
	}
}

// rewatch watches dir again after it was removed and created anew.
func (w *watcher) rewatch(log *slog.Logger) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var err error
	if w.subscribed {
		err = w.hub.readd(w.dir)
	} else if err = w.hub.add(w.dir, w, log); err == nil {
		w.subscribed = true
	}
	if err != nil {
		log.Warn("cannot watch the recreated folder; relying on the periodic rescan", "dir", w.dir, "err", err)
	}
}

// stop ends the watch and waits for it to be over.
func (w *watcher) stop() {
	close(w.quit)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.subscribed {
		w.hub.remove(w.dir, w)
		w.subscribed = false
	}
}
