package fsstore

import (
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watcher pokes a channel per folder whenever the folder may have gained
// a file: on a Create event, when events were lost (an overflow, the
// root's shared watcher went away), and every poll interval as a safety
// net for what events miss (network file systems, a folder that could
// not be watched). One timer serves all its folders, so an inbox wakes
// once per interval, not once per folder. The events come from the
// process's watch hub, however many folders are watched.
type watcher struct {
	hub     *watchHub
	root    string
	folders []*folderSub
	quit    chan struct{}
	done    chan struct{}
}

// folder is a folder to watch and the channel its news pokes.
type folder struct {
	dir    string
	notify chan<- struct{}
}

// folderSub is one folder of a watcher, and its subscriber on the hub.
type folderSub struct {
	folder
	mu         sync.Mutex
	subscribed bool // the hub watches dir for us; else the rescan alone
}

// startWatcher watches the folders (under the store root root) through
// hub and pokes their channels (without ever blocking on them) until
// stop. When a folder cannot be watched (no watcher can be made, the
// system's limit on watches is reached) it says so in one warning and
// relies on the rescan every poll interval.
func startWatcher(hub *watchHub, root string, every time.Duration, log *slog.Logger, folders ...folder) *watcher {
	w := &watcher{hub: hub, root: root, quit: make(chan struct{}), done: make(chan struct{})}
	for _, f := range folders {
		fs := &folderSub{folder: f}
		if err := hub.add(root, f.dir, fs, log); err != nil {
			log.Warn("fsnotify unavailable; new messages are noticed by the periodic rescan only",
				"dir", f.dir, "every", every, "err", err)
		} else {
			fs.subscribed = true
		}
		w.folders = append(w.folders, fs)
	}
	go w.run(every)
	return w
}

// event implements subscriber: a new file is news.
func (f *folderSub) event(ev fsnotify.Event) {
	if ev.Has(fsnotify.Create) {
		f.poke()
	}
}

// rescan implements subscriber: lost events mean "look again".
func (f *folderSub) rescan(error) { f.poke() }

func (f *folderSub) poke() {
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

// run pokes every folder's channel at each tick, until quit.
func (w *watcher) run(every time.Duration) {
	defer close(w.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-tick.C:
			for _, f := range w.folders {
				f.poke()
			}
		}
	}
}

// rewatch watches dir again after it was removed and created anew.
func (w *watcher) rewatch(dir string, log *slog.Logger) {
	for _, f := range w.folders {
		if f.dir != filepath.Clean(dir) && f.dir != dir {
			continue
		}
		f.mu.Lock()
		var err error
		if f.subscribed {
			err = w.hub.readd(f.dir)
		} else if err = w.hub.add(w.root, f.dir, f, log); err == nil {
			f.subscribed = true
		}
		f.mu.Unlock()
		if err != nil {
			log.Warn("cannot watch the recreated folder; relying on the periodic rescan", "dir", f.dir, "err", err)
		}
	}
}

// stop ends the watch and waits for it to be over.
func (w *watcher) stop() {
	close(w.quit)
	<-w.done
	for _, f := range w.folders {
		f.mu.Lock()
		if f.subscribed {
			w.hub.remove(f.dir, f)
			f.subscribed = false
		}
		f.mu.Unlock()
	}
}
