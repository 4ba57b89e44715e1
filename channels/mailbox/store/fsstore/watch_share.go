package fsstore

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"time"
)

// The processes of one root share one watcher (WatchEnv "shared", the
// default). The first process that needs to watch a folder of the root
// takes <root>/_watch.lock (an flock, held while it serves) and listens on
// <root>/_watch.sock; it watches the root's folders with its own watcher
// (fsnotify, or a poller when it cannot make one) for itself and for
// every process that connects, and sends each of them the new files of
// the folders it asked for. The others connect and make no watcher: a
// thousand agent processes hold one inotify instance. When the serving
// process stops watching (its last inbox closed) or dies, its clients see
// the connection end; one of them takes the lock and serves, the others
// connect to it, and every subscriber looks at its folders again, since
// files may have arrived in between. While the lock's holder does not
// serve yet (it is starting or stopping), the folders wait, their rescans
// looking meanwhile, and the process keeps trying; after pendingLimit it
// watches with its own watcher.
//
// The protocol is lines of text, paths relative to the root:
//
//	client → server   +DIR  watch DIR (answered in order)
//	                  rDIR  watch DIR again (it was made anew)
//	                  -DIR  stop watching DIR
//	server → client   aDIR  DIR is watched
//	                  eDIR\tWHY  DIR cannot be watched ("notexist": it is missing)
//	                  cPATH  PATH was created (or moved in)
//	                  o     events were lost: look again at every folder

// Names in the root.
const (
	watchLockName = "_watch.lock"
	watchSockName = WatchSocketName
)

// WatchSocketName is the unix socket in the root on which the process
// watching for the root's processes serves them (see WatchEnv).
const WatchSocketName = "_watch.sock"

// errNoShare says that this root cannot be shared here; the process
// watches with its own watcher.
var errNoShare = errors.New("the root's watcher cannot be shared")

// errShareLost fails a request whose connection to the root's watcher
// ended; the hub asks the next watcher.
var errShareLost = errors.New("the root's shared watcher went away")

// rootShare is how this process shares the watcher of one root: it
// serves it (src is the process's own watcher) or is a client of the
// process that does (src is a remoteSource).
type rootShare struct {
	h    *watchHub
	root string

	// Guarded by h.mu: this process's subscribers under root, all of
	// them (with its clients'), and whether src is set.
	own, all int
	active   bool

	mu      sync.Mutex     // guards what follows; taken before h.mu, never while holding it
	remote  *remoteSource  // while a client
	server  *shareServer   // while serving (the source is then the process's own watcher)
	pending *pendingSource // while looking for the root's watcher
	alone   bool           // gave up sharing: the process's own watcher
	lostAt  time.Time      // when the connection to the root's watcher last ended
	takeAt  time.Duration  // how long after that this process may take over
}

// Before a process takes over from a serving process that went away, it
// waits a random while in [handoffMin, handoffMax), connecting if another
// took over meanwhile: when every process of a root stops at once, each
// server that goes away is not followed by another that goes away too, and
// another, with every client reconnecting each time.
const (
	handoffMin = 100 * time.Millisecond
	handoffMax = 400 * time.Millisecond
)

// countSub counts a subscriber of a folder under root coming (+1) or
// going (-1). h.mu is held.
func (h *watchHub) countSub(root string, s subscriber, delta int) {
	sh := h.shares[root]
	if sh == nil {
		sh = &rootShare{h: h, root: root}
		h.shares[root] = sh
	}
	sh.all += delta
	if _, client := s.(*shareConn); !client {
		sh.own += delta
	}
}

// idle ends root's share once this process has no subscriber under it:
// it returns the share to end (endIfIdle, once h.mu is released: it stops
// serving, and its clients find another server, or disconnects), if any.
// h.mu is held.
func (h *watchHub) idle(root string) *rootShare {
	sh := h.shares[root]
	if sh == nil {
		return nil
	}
	if sh.all == 0 && !sh.active {
		delete(h.shares, root)
	}
	if sh.own == 0 && sh.active {
		return sh
	}
	return nil
}

// sourceFor returns the source for a new folder under root; a reader's
// when readOnly (see reader).
func (h *watchHub) sourceFor(root string, readOnly bool) (source, error) {
	if h.mode == watchLocal {
		return h.localSrc()
	}
	h.mu.Lock()
	sh := h.shares[root]
	h.mu.Unlock()
	if sh == nil {
		return nil, errors.New("folder not watched") // removed meanwhile
	}
	if readOnly {
		return sh.readerSource()
	}
	return sh.source()
}

// readerSource is source for a reader: the share's source when it has one
// (a connection, or this process serving), else a connection to the
// root's watcher if one serves, else this process's own watcher; it never
// takes the lock or waits.
func (sh *rootShare) readerSource() (source, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	switch {
	case sh.remote != nil && !sh.remote.isClosed():
		return sh.remote, nil
	case sh.server != nil:
		return sh.h.localSrc()
	}
	if rs, err := dialShare(sh); err == nil {
		sh.setRemote(rs)
		return rs, nil
	}
	return sh.h.localSrc()
}

// source returns the share's source, finding the root's watcher (or
// becoming it) if there is none yet. When the root's lock is held by a
// process that does not serve yet (it is starting, or stopping), the
// folders wait on a pendingSource while the share keeps looking (await):
// their subscribers rescan meanwhile, and look again once a watcher is
// found.
func (sh *rootShare) source() (source, error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.remote != nil && sh.remote.isClosed() {
		sh.setRemote(nil) // its folders move on (lost)
	}
	switch {
	case sh.remote != nil:
		return sh.remote, nil
	case sh.server != nil, sh.alone:
		return sh.h.localSrc()
	case sh.pending != nil:
		return sh.pending, nil
	}
	established, err := sh.establish()
	switch {
	case established:
		if sh.server != nil {
			return sh.h.localSrc()
		}
		return sh.remote, nil
	case err != nil:
		sh.alone = true
		if sh.h.log != nil && !errors.Is(err, errNoShare) {
			sh.h.log.Warn("cannot share the root's watcher; watching with this process's own",
				"root", sh.root, "err", err)
		}
		return sh.h.localSrc()
	}
	sh.pending = &pendingSource{}
	sh.setRemote(nil)
	go sh.await(sh.pending)
	return sh.pending, nil
}

// establish connects to the root's watcher, or becomes it. It reports
// false, and no error, when another process holds the lock but does not
// serve yet. sh.mu is held.
func (sh *rootShare) establish() (bool, error) {
	rs, err := dialShare(sh)
	if err == nil {
		sh.setRemote(rs)
		return true, nil
	}
	if errors.Is(err, errNoShare) {
		return false, err
	}
	if !sh.lostAt.IsZero() && time.Since(sh.lostAt) < sh.takeAt {
		return false, nil // not yet: someone else may take over first
	}
	srv, err := serveShare(sh)
	if err != nil || srv == nil {
		return false, err
	}
	if _, err := sh.h.localSrc(); err != nil {
		srv.stop()
		return false, err
	}
	sh.server = srv
	sh.setRemote(nil)
	if sh.h.onServe != nil {
		sh.h.onServe(sh.root)
	}
	return true, nil
}

// await keeps looking for the root's watcher while p is the share's
// pending source, then moves p's folders to it. After pendingLimit it
// gives up and watches with this process's own watcher.
func (sh *rootShare) await(p *pendingSource) {
	wait := 5 * time.Millisecond
	deadline := time.Now().Add(pendingLimit)
	for {
		time.Sleep(wait)
		wait = min(2*wait, 500*time.Millisecond)
		sh.mu.Lock()
		if sh.pending != p {
			sh.mu.Unlock()
			return // the share ended meanwhile
		}
		established, err := sh.establish()
		if !established && (err != nil || time.Now().After(deadline)) {
			if err == nil {
				err = fmt.Errorf("the process holding %s did not serve within %s", watchLockName, pendingLimit)
			}
			sh.alone = true
			if sh.h.log != nil && !errors.Is(err, errNoShare) {
				sh.h.log.Warn("cannot share the root's watcher; watching with this process's own",
					"root", sh.root, "err", err)
			}
		}
		if !established && !sh.alone {
			sh.mu.Unlock()
			continue
		}
		sh.pending = nil
		sh.setRemote(sh.remote)
		sh.mu.Unlock()
		sh.h.migrate(sh, p)
		return
	}
}

// pendingLimit bounds how long a process waits for the root's watcher to
// serve before it watches alone.
const pendingLimit = 30 * time.Second

// pendingSource holds the folders of a root while its watcher is being
// found: it watches nothing, and the folders' rescans look meanwhile.
type pendingSource struct{}

func (*pendingSource) add(string) error   { return nil }
func (*pendingSource) readd(string) error { return nil }
func (*pendingSource) remove(string)      {}

// setRemote makes rs the share's connection (nil: none), and notes
// whether the share is active (a client or serving). sh.mu is held.
func (sh *rootShare) setRemote(rs *remoteSource) {
	sh.remote = rs
	sh.h.mu.Lock()
	sh.active = rs != nil || sh.server != nil || sh.pending != nil
	sh.h.mu.Unlock()
}

// endIfIdle stops serving, or disconnects, if this process still has no
// subscriber under the root. sh may be nil.
func (sh *rootShare) endIfIdle() {
	if sh == nil {
		return
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.h.mu.Lock()
	own := sh.own
	sh.h.mu.Unlock()
	if own > 0 {
		return
	}
	if sh.server != nil {
		sh.server.stop()
		sh.server = nil
	}
	if sh.remote != nil {
		sh.remote.close()
	}
	sh.pending = nil
	sh.setRemote(nil)
	sh.h.mu.Lock()
	if sh.all == 0 && sh.h.shares[sh.root] == sh {
		delete(sh.h.shares, sh.root)
	}
	sh.h.mu.Unlock()
}

// lost is called when the connection of rs ended: the folders it watched
// move to the root's next watcher.
func (sh *rootShare) lost(rs *remoteSource) {
	sh.mu.Lock()
	if sh.remote == rs {
		sh.setRemote(nil)
		sh.lostAt = time.Now()
		sh.takeAt = handoffMin + rand.N(handoffMax-handoffMin)
	}
	sh.mu.Unlock()
	sh.h.migrate(sh, rs)
}

// migrate moves the folders watched through from to the root's next
// source, and tells their subscribers to look again.
func (h *watchHub) migrate(sh *rootShare, from source) {
	h.mu.Lock()
	moving := map[string]*watchedDir{}
	readOnly := true // only readers watch them: never serve for them
	for dir, d := range h.dirs {
		if d.src == from {
			d.src = nil
			moving[dir] = d
			for s := range d.subs {
				readOnly = readOnly && isReader(s)
			}
		}
	}
	if len(moving) == 0 {
		h.mu.Unlock()
		return
	}
	h.adding++ // keeps the process's own watcher open while folders move to it
	h.mu.Unlock()
	next := sh.source
	if readOnly {
		next = sh.readerSource
	}
	src, err := next()
	for dir, d := range moving {
		// The next watcher may go away too while the folders move to it
		// (killed as it took over, say): then ask for the one after it,
		// as add does, lest the folder be left with no source at all.
		added := false
		for attempt := 1; err == nil && !added && attempt <= 3; attempt++ {
			aerr := src.add(dir)
			added = aerr == nil
			if aerr != nil && !errors.Is(aerr, errShareLost) {
				break
			}
			if !added {
				src, err = next()
			}
		}
		h.mu.Lock()
		switch {
		case h.dirs[dir] != d && added: // removed meanwhile
			src.remove(dir)
		case added:
			d.src = src
			h.noteAdded(src)
		}
		h.mu.Unlock()
	}
	if err != nil && h.log != nil {
		h.log.Warn("the root's shared watcher went away and no other could be found; relying on the periodic rescan",
			"root", sh.root, "err", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.adding--
	h.closeLocalIfIdle()
	seen := map[subscriber]bool{}
	for dir, d := range moving {
		if h.dirs[dir] != d {
			continue
		}
		for s := range d.subs {
			if !seen[s] {
				seen[s] = true
				s.rescan(errShareLost)
			}
		}
	}
}

// relDir returns dir relative to root for the protocol; dir must be
// under root.
func relDir(root, dir string) (string, error) {
	rel, err := filepath.Rel(root, dir)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", fmt.Errorf("%s is not under %s", dir, root)
	}
	return rel, nil
}
