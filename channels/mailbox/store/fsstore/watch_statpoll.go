package fsstore

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

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
