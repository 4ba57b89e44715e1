package fsstore

import (
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// processHub is the one watch hub of this process, shared by every Store,
// Inbox and Watch. On Linux an fsnotify watcher is an inotify instance,
// of which a user has 128 by default: a watcher per inbox would run out
// from the 65th agent on one machine, and a watcher per process from the
// 128th agent process. So the hub shares one watcher among the folders of
// the process, and (watchShared, the default) the processes of a root
// share the watcher of one of them (watch_share.go).
var processHub = newWatchHub(watchModeFromEnv(), fsnotify.NewWatcher)

// subscriber receives what the hub sees in the folders it subscribed to.
// Both methods run on a source's goroutine and must not block.
type subscriber interface {
	// event is a change in one of the subscriber's folders.
	event(ev fsnotify.Event)
	// rescan says that events may have been lost (the kernel's queue
	// overflowed, the watcher failed, the root's shared watcher went
	// away): look at the folders again.
	rescan(err error)
}

// reader is a subscriber that must write nothing in the tree (Watch, for
// the read-only commands): it uses the root's shared watcher when one
// serves, and never becomes it.
type reader interface {
	readOnly() bool
}

func isReader(s subscriber) bool {
	r, ok := s.(reader)
	return ok && r.readOnly()
}

// source is where the events of the folders added to it come from: the
// process's own watcher (fsnotify or, without it, a poller) or the
// root's shared watcher in another process. It hands them to the hub
// (dispatch, broadcast).
type source interface {
	// add watches dir; it fails, changing nothing, when dir cannot be
	// watched (missing: an error wrapping fs.ErrNotExist).
	add(dir string) error
	// readd watches dir again after it was removed and made anew.
	readd(dir string) error
	// remove stops watching dir.
	remove(dir string)
}

// watchHub hands the events of many folders to their subscribers. Each
// folder is added once to one source, however many subscribers it has.
type watchHub struct {
	mode       watchMode
	newWatcher func() (*fsnotify.Watcher, error)

	mu     sync.Mutex
	dirs   map[string]*watchedDir // folder → its subscribers and source
	local  localSource            // the process's own watcher; nil while it watches nothing
	nlocal int                    // folders on local
	adding int                    // adds under way, which may be adding to local
	shares map[string]*rootShare  // root → how its processes share a watcher
	log    *slog.Logger           // the last subscriber's, for the hub's own warnings

	onServe func(root string) // tests: called when this process starts serving a root
}

// watchedDir is one folder the hub watches.
type watchedDir struct {
	root  string
	subs  map[subscriber]bool
	src   source        // nil while being added or moved to another source
	ready chan struct{} // closed once the first add ended
	err   error         // of the first add; the folder is not watched then
}

func newWatchHub(mode watchMode, newWatcher func() (*fsnotify.Watcher, error)) *watchHub {
	return &watchHub{mode: mode, newWatcher: newWatcher, dirs: map[string]*watchedDir{},
		shares: map[string]*rootShare{}}
}

// add makes s receive the events of folder dir, under the store root
// root. It fails, changing nothing, when dir cannot be watched (it is
// missing, no watcher can be made, the system's limit on watches is
// reached).
func (h *watchHub) add(root, dir string, s subscriber, log *slog.Logger) error {
	return h.addVia(root, dir, s, log, nil)
}

// addVia is add with the folder's source given (nil: the root's).
func (h *watchHub) addVia(root, dir string, s subscriber, log *slog.Logger, via source) error {
	dir = filepath.Clean(dir)
	h.mu.Lock()
	if log != nil {
		h.log = log
	}
	if d := h.dirs[dir]; d != nil {
		d.subs[s] = true
		h.countSub(d.root, s, 1)
		h.mu.Unlock()
		<-d.ready
		if d.err != nil {
			h.remove(dir, s)
		}
		return d.err
	}
	d := &watchedDir{root: root, subs: map[subscriber]bool{s: true}, ready: make(chan struct{})}
	h.dirs[dir] = d
	h.countSub(root, s, 1)
	h.adding++ // keeps local open until this add counted its folder
	h.mu.Unlock()

	src, err := via, error(nil)
	for attempt := 1; ; attempt++ {
		if via == nil {
			src, err = h.sourceFor(root, isReader(s))
		}
		if err == nil {
			err = src.add(dir)
		}
		if via != nil || !errors.Is(err, errShareLost) || attempt == 3 {
			break
		}
	}
	h.mu.Lock()
	d.err = err
	if err == nil {
		d.src = src
		h.noteAdded(src)
	} else {
		delete(h.dirs, dir)
		for sub := range d.subs {
			h.countSub(root, sub, -1)
		}
	}
	close(d.ready)
	h.adding--
	h.closeLocalIfIdle()
	end := h.idle(root)
	h.mu.Unlock()
	end.endIfIdle()
	return err
}

// readd watches dir again after it was removed and created anew (the
// kernel drops the watch of a removed folder), for its subscribers.
func (h *watchHub) readd(dir string) error {
	dir = filepath.Clean(dir)
	h.mu.Lock()
	d := h.dirs[dir]
	h.mu.Unlock()
	if d == nil {
		return errors.New("folder not watched")
	}
	<-d.ready
	h.mu.Lock()
	src := d.src
	h.mu.Unlock()
	if src == nil {
		return errors.New("folder not watched")
	}
	return src.readd(dir)
}

// remove stops s receiving the events of dir. The last subscriber of a
// folder removes its watch; the last folder of a root ends the root's
// share, and the last folder of all closes the process's watcher.
func (h *watchHub) remove(dir string, s subscriber) {
	dir = filepath.Clean(dir)
	h.mu.Lock()
	d := h.dirs[dir]
	h.mu.Unlock()
	if d == nil {
		return
	}
	<-d.ready
	h.mu.Lock()
	if h.dirs[dir] != d || !d.subs[s] {
		h.mu.Unlock()
		return
	}
	delete(d.subs, s)
	h.countSub(d.root, s, -1)
	if len(d.subs) == 0 {
		delete(h.dirs, dir)
		if d.src != nil {
			d.src.remove(dir) // fails when the folder is gone, and so is its watch
			h.noteRemoved(d.src)
		}
	}
	end := h.idle(d.root)
	h.mu.Unlock()
	end.endIfIdle()
}

// dispatch hands an event of src to the subscribers of the folder it
// happened in.
func (h *watchHub) dispatch(src source, ev fsnotify.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if d := h.dirs[filepath.Dir(ev.Name)]; d != nil && d.src == src {
		for s := range d.subs {
			s.event(ev)
		}
	}
}

// broadcast tells every subscriber of a folder on src that events were
// lost.
func (h *watchHub) broadcast(src source, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !errors.Is(err, fsnotify.ErrEventOverflow) && h.log != nil {
		h.log.Warn("fsnotify error; rescanning", "err", err)
	}
	h.rescanLocked(func(d *watchedDir) bool { return d.src == src }, err)
}

// rescanLocked tells each subscriber of the folders that match, once,
// to look again. h.mu is held.
func (h *watchHub) rescanLocked(match func(*watchedDir) bool, err error) {
	seen := map[subscriber]bool{}
	for _, d := range h.dirs {
		if !match(d) {
			continue
		}
		for s := range d.subs {
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
	return len(h.dirs)
}

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
	onTick  func(poked int) // tests: after each tick, how many folders it poked
}

// folder is a folder to watch, the channel its news pokes, and (when
// not nil) the mark that lets the periodic tick skip it while it stays
// as empty as its last scan found it.
type folder struct {
	dir    string
	notify chan<- struct{}
	quiet  *quietMark
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
	w := newWatcher(hub, root, every, log, folders...)
	go w.run(every)
	return w
}

// newWatcher is startWatcher without the ticks: run starts them.
func newWatcher(hub *watchHub, root string, every time.Duration, log *slog.Logger, folders ...folder) *watcher {
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

// run pokes every folder's channel at each tick, until quit, except a
// folder whose quiet mark says it is still as empty as its last scan
// found it.
func (w *watcher) run(every time.Duration) {
	defer close(w.done)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-tick.C:
			poked := 0
			for _, f := range w.folders {
				if !f.quiet.unchanged(f.dir) {
					f.poke()
					poked++
				}
			}
			if w.onTick != nil {
				w.onTick(poked)
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
