package fsstore

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"path/filepath"
	"strings"
	"sync"

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
