package fsstore

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

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

// sharedPollEvery is how often a process that watches for its root
// without fsnotify looks at the folders: new mail is seen within this,
// for every process of the root, at the cost of one stat per folder per
// look in one process.
const sharedPollEvery = 50 * time.Millisecond

// racyWindow: a folder changed this recently may change again within the
// same tick of the file system's clock without its time moving, so it is
// listed again at the next look.
const racyWindow = 100 * time.Millisecond

// pollSource watches folders without fsnotify: it stats each folder every
// interval and, when the folder changed (or may have: racyWindow), lists
// it and reports the names that are new as Create events.
type pollSource struct {
	h     *watchHub
	every time.Duration

	mu   sync.Mutex
	dirs map[string]*polledDir
	quit chan struct{}
	once sync.Once
}

// polledDir is a folder as last looked at.
type polledDir struct {
	info  fs.FileInfo
	names map[string]bool
	racy  bool
}

func newPollSource(h *watchHub, every time.Duration) *pollSource {
	p := &pollSource{h: h, every: every, dirs: map[string]*polledDir{}, quit: make(chan struct{})}
	go p.run()
	return p
}

func (p *pollSource) add(dir string) error {
	d, err := look(dir)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dirs[dir] = d
	return nil
}

func (p *pollSource) readd(dir string) error { return p.add(dir) }

func (p *pollSource) remove(dir string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.dirs, dir)
}

// close stops the poller without waiting for it.
func (p *pollSource) close() { p.once.Do(func() { close(p.quit) }) }

// look lists dir.
func look(dir string) (*polledDir, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if err := checkDirInfo(dir, fi); err != nil {
		return nil, err
	}
	d := &polledDir{info: fi, names: map[string]bool{}, racy: time.Since(fi.ModTime()) < racyWindow}
	err = eachEntry(dir, func(e fs.DirEntry) { d.names[e.Name()] = true })
	return d, err
}

func (p *pollSource) run() {
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			p.poll()
		}
	}
}

// poll looks at every folder once and reports what is new.
func (p *pollSource) poll() {
	p.mu.Lock()
	dirs := make(map[string]*polledDir, len(p.dirs))
	for dir, d := range p.dirs {
		dirs[dir] = d
	}
	p.mu.Unlock()
	for dir, before := range dirs {
		fi, err := os.Lstat(dir)
		if err != nil || (!before.racy && os.SameFile(fi, before.info) && fi.ModTime().Equal(before.info.ModTime())) {
			continue
		}
		now, err := look(dir)
		if err != nil {
			continue
		}
		p.mu.Lock()
		if p.dirs[dir] == before {
			p.dirs[dir] = now
		}
		p.mu.Unlock()
		for name := range now.names {
			if !before.names[name] {
				p.h.dispatch(p, fsnotify.Event{Name: filepath.Join(dir, name), Op: fsnotify.Create})
			}
		}
	}
}
