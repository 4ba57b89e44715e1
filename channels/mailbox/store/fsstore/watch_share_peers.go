package fsstore

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
)

// remoteSource is the root's watcher in another process, as its client
// sees it (see watch_share.go).
type remoteSource struct {
	sh   *rootShare
	conn net.Conn

	mu      sync.Mutex
	w       *bufio.Writer
	pending []chan error // requests waiting for their answer, in order
	closed  bool
}

// dialShare connects to the root's watcher, if a process serves it.
func dialShare(sh *rootShare) (*remoteSource, error) {
	conn, err := dialShareConn(sh.root)
	if err != nil {
		return nil, err
	}
	rs := &remoteSource{sh: sh, conn: conn, w: bufio.NewWriter(conn)}
	go rs.read()
	return rs, nil
}

func (rs *remoteSource) add(dir string) error {
	rel, err := relDir(rs.sh.root, dir)
	if err != nil {
		return err
	}
	if err := rs.request("+"+rel, true); err != nil {
		return fmt.Errorf("watch %s: %w", dir, err)
	}
	return nil
}

func (rs *remoteSource) readd(dir string) error {
	rel, err := relDir(rs.sh.root, dir)
	if err != nil {
		return err
	}
	return rs.request("r"+rel, false)
}

func (rs *remoteSource) remove(dir string) {
	if rel, err := relDir(rs.sh.root, dir); err == nil {
		_ = rs.request("-"+rel, false)
	}
}

// close disconnects; read then ends.
func (rs *remoteSource) close() { rs.conn.Close() }

func (rs *remoteSource) isClosed() bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.closed
}

// request sends one line and, with wait, waits for its answer.
func (rs *remoteSource) request(line string, wait bool) error {
	var answer chan error
	rs.mu.Lock()
	if rs.closed {
		rs.mu.Unlock()
		return errShareLost
	}
	if wait {
		answer = make(chan error, 1)
		rs.pending = append(rs.pending, answer)
	}
	rs.w.WriteString(line)
	rs.w.WriteByte('\n')
	err := rs.w.Flush()
	rs.mu.Unlock()
	if err != nil {
		rs.conn.Close() // read ends and answers every request
	}
	if !wait {
		return nil
	}
	return <-answer
}

// read hands the server's events to the hub and its answers to the
// requests, until the connection ends; then the folders move to the
// root's next watcher.
func (rs *remoteSource) read() {
	h, root := rs.sh.h, rs.sh.root
	sc := bufio.NewScanner(rs.conn)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		switch line[0] {
		case 'c':
			h.dispatch(rs, fsnotify.Event{Name: filepath.Join(root, line[1:]), Op: fsnotify.Create})
		case 'o':
			h.broadcast(rs, fsnotify.ErrEventOverflow)
		case 'a', 'e':
			rs.answer(line)
		}
	}
	rs.conn.Close()
	rs.mu.Lock()
	rs.closed = true
	pending := rs.pending
	rs.pending = nil
	rs.mu.Unlock()
	for _, p := range pending {
		p <- errShareLost
	}
	rs.sh.lost(rs)
}

// answer hands an answer to the oldest request waiting.
func (rs *remoteSource) answer(line string) {
	rs.mu.Lock()
	if len(rs.pending) == 0 {
		rs.mu.Unlock()
		return
	}
	p := rs.pending[0]
	rs.pending = rs.pending[1:]
	rs.mu.Unlock()
	if line[0] == 'a' {
		p <- nil
		return
	}
	_, why, _ := strings.Cut(line[1:], "\t")
	if why == "notexist" {
		p <- fs.ErrNotExist
		return
	}
	p <- errors.New(why)
}

// shareQueue bounds the lines a client has not read yet; beyond it the
// events are dropped and the client is told to look again.
const shareQueue = 4096

// shareServer is this process serving its root's watcher to the other
// processes of the root (see watch_share.go).
type shareServer struct {
	sh   *rootShare
	ln   *net.UnixListener
	lock *os.File // holds <root>/_watch.lock
	path string   // <root>/_watch.sock

	mu      sync.Mutex
	conns   map[*shareConn]bool
	stopped bool
}

// serveShare takes the root's watch lock and listens on its socket. It
// returns nil, and no error, when another process holds the lock.
func serveShare(sh *rootShare) (*shareServer, error) {
	lock, err := openLockFile(filepath.Join(sh.root, watchLockName))
	if err != nil {
		return nil, err
	}
	locked, err := tryLock(lock)
	if err != nil || !locked {
		lock.Close()
		return nil, err
	}
	path := filepath.Join(sh.root, watchSockName)
	// What is there was left by a server that died: no one else serves
	// while we hold the lock.
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		releaseLock(lock)
		return nil, err
	}
	ln, err := listenShare(sh.root)
	if err != nil {
		releaseLock(lock)
		return nil, err
	}
	_ = os.Chmod(path, 0o600)
	srv := &shareServer{sh: sh, ln: ln, lock: lock, path: path, conns: map[*shareConn]bool{}}
	go srv.accept()
	return srv, nil
}

func (srv *shareServer) accept() {
	for {
		c, err := srv.ln.Accept()
		if err != nil {
			return // closed by stop
		}
		sc := &shareConn{srv: srv, conn: c, out: make(chan string, shareQueue),
			kick: make(chan struct{}, 1), done: make(chan struct{})}
		srv.mu.Lock()
		if srv.stopped {
			srv.mu.Unlock()
			c.Close()
			return
		}
		srv.conns[sc] = true
		srv.mu.Unlock()
		go sc.serve()
	}
}

// stop stops serving: the socket goes first, so that new clients find no
// server; then the clients are disconnected, and the lock is released for
// one of them to take.
func (srv *shareServer) stop() {
	srv.mu.Lock()
	srv.stopped = true
	conns := make([]*shareConn, 0, len(srv.conns))
	for c := range srv.conns {
		conns = append(conns, c)
	}
	srv.mu.Unlock()
	_ = os.Remove(srv.path)
	_ = srv.ln.Close()
	for _, c := range conns {
		c.conn.Close()
	}
	_ = releaseLock(srv.lock)
}

// add watches dir for client c with this process's own watcher.
func (srv *shareServer) add(dir string, c *shareConn) error {
	srv.mu.Lock()
	stopped := srv.stopped
	srv.mu.Unlock()
	if stopped {
		return errShareLost
	}
	local, err := srv.sh.h.localSrc()
	if err != nil {
		return err
	}
	return srv.sh.h.addVia(srv.sh.root, dir, c, nil, local)
}

// shareConn is one client of the server, and the subscriber of the
// folders it asked for.
type shareConn struct {
	srv  *shareServer
	conn net.Conn
	out  chan string   // lines to send
	lost atomic.Bool   // events were dropped: send "o"
	kick chan struct{} // wakes the writer for lost
	done chan struct{} // closed when the client is gone
}

// event implements subscriber: new files are sent on, never blocking.
func (c *shareConn) event(ev fsnotify.Event) {
	if !ev.Has(fsnotify.Create) {
		return
	}
	rel, err := relDir(c.srv.sh.root, ev.Name)
	if err != nil || strings.ContainsAny(rel, "\r\n") {
		c.rescan(nil) // a name the protocol cannot carry: the client looks itself
		return
	}
	select {
	case c.out <- "c" + rel:
	default:
		c.rescan(nil)
	}
}

// rescan implements subscriber: the client is told to look again.
func (c *shareConn) rescan(error) {
	c.lost.Store(true)
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// answer queues the answer to a request; it waits for room.
func (c *shareConn) answer(line string) {
	select {
	case c.out <- line:
	case <-c.done:
	}
}

// serve reads the client's requests until it goes, then stops watching
// its folders.
func (c *shareConn) serve() {
	go c.write()
	h, root := c.srv.sh.h, c.srv.sh.root
	dirs := map[string]bool{}
	sc := bufio.NewScanner(c.conn)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		rel := line[1:]
		dir := filepath.Join(root, rel)
		if _, err := relDir(root, dir); err != nil || filepath.Clean(rel) != rel {
			if line[0] == '+' {
				c.answer("e" + rel + "\tnot a folder of the root")
			}
			continue
		}
		switch line[0] {
		case '+':
			if dirs[dir] {
				c.answer("a" + rel)
				continue
			}
			if err := c.srv.add(dir, c); err != nil {
				c.answer("e" + rel + "\t" + whyNot(err))
				continue
			}
			dirs[dir] = true
			c.answer("a" + rel)
		case '-':
			if dirs[dir] {
				delete(dirs, dir)
				h.remove(dir, c)
			}
		case 'r':
			if dirs[dir] {
				_ = h.readd(dir)
			}
		}
	}
	close(c.done)
	c.conn.Close()
	for dir := range dirs {
		h.remove(dir, c)
	}
	c.srv.mu.Lock()
	delete(c.srv.conns, c)
	c.srv.mu.Unlock()
}

// write sends the queued lines, in batches, until the client is gone.
func (c *shareConn) write() {
	w := bufio.NewWriter(c.conn)
	for {
		select {
		case <-c.done:
			return
		case line := <-c.out:
			w.WriteString(line)
			w.WriteByte('\n')
			for more := true; more; {
				select {
				case line := <-c.out:
					w.WriteString(line)
					w.WriteByte('\n')
				default:
					more = false
				}
			}
		case <-c.kick:
		}
		if c.lost.Swap(false) {
			w.WriteString("o\n")
		}
		if w.Flush() != nil {
			c.conn.Close() // the reader ends, and with it the client
			return
		}
	}
}

// whyNot is the protocol's reason for a folder that cannot be watched.
func whyNot(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "notexist"
	}
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(err.Error())
}
