package audit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// File names in the log's folder.
const (
	// FileName is the current log file; rotated files are FileName.1 (the
	// newest) to FileName.<Keep>.
	FileName = "manifest.jsonl"
	// lockName is the file whose flock every writer takes for each line.
	// It is never renamed, so writers of the old and the new file after a
	// rotation exclude each other.
	lockName = "_manifest.lock"
)

// Defaults for Options.
const (
	DefaultMaxBytes = 16 << 20
	DefaultKeep     = 4
)

// maxField caps the free-text fields of one entry (the reason), so that a
// line stays small.
const maxField = 2048

// Entry is one line of the log: the event and the process that wrote it.
type Entry struct {
	store.Event
	PID  int    `json:"pid,omitempty"`
	Host string `json:"host,omitempty"`
}

// Options configures a Writer. Zero values take the defaults.
type Options struct {
	// MaxBytes is the size past which the log is rotated (default 16 MiB);
	// negative never rotates.
	MaxBytes int64
	// Keep is how many rotated files are kept (default 4); negative keeps
	// none: the full log is deleted when it rotates.
	Keep int
	// Sync fsyncs every line (slow; the log is for people, not recovery).
	Sync bool
	// OnError receives the error of a background write of queued lines
	// (Enqueue); nil drops it.
	OnError func(error)
}

func (o *Options) setDefaults() {
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Keep == 0 {
		o.Keep = DefaultKeep
	}
	if o.Keep < 0 {
		o.Keep = 0
	}
}

// Writer appends entries to the log in one folder. It is safe for
// concurrent use, and any number of processes may write the same log.
type Writer struct {
	dir  string
	path string
	opts Options
	pid  int
	host string

	mu     sync.Mutex
	lock   *os.File // the lock file, flocked around each line
	f      *os.File // the current log file, opened for appending
	ino    uint64   // its inode, to notice a rotation by another process
	size   int64    // its size when last looked at, under the flock
	end    int64    // its size after this Writer's last whole line; -1: unknown
	buf    []byte   // the lines being written
	closed bool

	qmu      sync.Mutex    // guards the queue; taken inside mu, never around it
	queue    []store.Event // lines queued by Enqueue, not yet written
	spare    []store.Event // the queue's other slice, kept between writes (takeQueued)
	flushing bool          // a flushQueued goroutine runs
}

// Open returns a Writer for the log in dir (which must exist). It touches
// nothing until the first Append, so a process that only reads the
// mailbox leaves no trace. On windows it fails with ErrUnsupportedPlatform.
func Open(dir string, opts Options) (*Writer, error) {
	if err := checkPlatform(); err != nil {
		return nil, err
	}
	opts.setDefaults()
	fi, err := os.Stat(dir)
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("%s is not a folder", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	host, _ := os.Hostname()
	return &Writer{dir: dir, path: filepath.Join(dir, FileName), opts: opts, pid: os.Getpid(), host: host}, nil
}

// Path returns the current log file's path.
func (w *Writer) Path() string { return w.path }

// Append writes ev as one line. The line is written with a single write
// on a file opened with O_APPEND while this process holds the log's flock,
// so it lands whole after every line written before it, whatever other
// processes do.
func (w *Writer) Append(ev store.Event) error {
	return w.Locked(func() *store.Event { return &ev })
}

// AppendBatch writes the events as lines, in order, with one write under
// one hold of the flock (see Append): a batch costs what one line does.
func (w *Writer) AppendBatch(evs []store.Event) error {
	if len(evs) == 0 {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return store.ErrClosed
	}
	if err := w.lockFile(); err != nil {
		return err
	}
	defer unlock(w.lock)
	w.buf = w.takeQueued(w.buf[:0])
	for _, ev := range evs {
		w.buf = w.encode(w.buf, ev)
	}
	return w.write(w.buf)
}

// Locked runs fn while holding the log's lock, then appends the event fn
// returns (nil: none) before letting the lock go. No writer appends in
// between, so a line about an effect of what fn did (a receiver claiming
// the message fn delivered) lands after fn's own line. fn runs exactly
// once, even when the lock cannot be taken: the log never stops the work
// it records.
func (w *Writer) Locked(fn func() *store.Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		fn()
		return store.ErrClosed
	}
	if err := w.lockFile(); err != nil {
		fn()
		return err
	}
	defer unlock(w.lock) // closing the file would release it too
	// This process's earlier lines first, written before fn runs: fn may
	// read the log.
	var qerr error
	if w.buf = w.takeQueued(w.buf[:0]); len(w.buf) > 0 {
		qerr = w.write(w.buf)
	}
	ev := fn()
	if ev == nil {
		return qerr
	}
	w.buf = w.encode(w.buf[:0], *ev)
	return errors.Join(qerr, w.write(w.buf))
}

// write appends whole lines to the current file, rotating it first when
// they would fill it. The caller holds w.mu and the flock.
func (w *Writer) write(lines []byte) error {
	size, err := w.current()
	if err != nil {
		return err
	}
	if err := w.rotateIfFull(size, int64(len(lines))); err != nil {
		return err
	}
	if lines, err = w.closeTornLine(lines); err != nil {
		return err
	}
	w.end = -1
	n, err := w.f.Write(lines)
	if err == nil && n != len(lines) {
		err = fmt.Errorf("short write (%d of %d bytes)", n, len(lines))
	}
	if err == nil && w.opts.Sync {
		err = w.f.Sync()
	}
	if err != nil {
		return fmt.Errorf("audit log %s: append: %w", w.path, err)
	}
	w.end = w.size + int64(n)
	return nil
}

// lockFile opens the lock file if needed and takes its flock. The caller
// holds w.mu.
func (w *Writer) lockFile() error {
	if w.lock == nil {
		lock, err := os.OpenFile(filepath.Join(w.dir, lockName), os.O_RDWR|os.O_CREATE|noFollow, 0o600)
		if err != nil {
			return fmt.Errorf("audit log: %w", err)
		}
		w.lock = lock
	}
	if err := lockExclusive(w.lock); err != nil {
		return fmt.Errorf("audit log: lock: %w", err)
	}
	return nil
}

// encode appends ev as one line to b, with long free text clipped
// (appendEntry).
func (w *Writer) encode(b []byte, ev store.Event) []byte {
	if len(ev.Reason) > maxField {
		ev.Reason = ev.Reason[:maxField] + "..."
	}
	return appendEntry(b, Entry{Event: ev, PID: w.pid, Host: w.host})
}

// current (re)opens the log file when it is not open yet or another
// process rotated it away, and returns its size. The caller holds the
// flock, so no other writer changes the size before this one appends.
func (w *Writer) current() (int64, error) {
	fi, err := os.Lstat(w.path)
	switch {
	case err == nil && w.f != nil && inode(fi) == w.ino:
		w.size = fi.Size()
		return w.size, nil // the file this Writer holds: no fstat needed
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return 0, fmt.Errorf("audit log: %w", err)
	}
	return w.reopen()
}

// reopen opens the log file at w.path for appending (creating it) and
// returns its size.
func (w *Writer) reopen() (int64, error) {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	// Read as well as append: closeTornLine reads the last byte.
	f, err := os.OpenFile(w.path, os.O_RDWR|os.O_APPEND|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		return 0, fmt.Errorf("audit log: open %s: %w", w.path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, fmt.Errorf("audit log: %w", err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return 0, fmt.Errorf("audit log: %s is not a regular file", w.path)
	}
	w.f, w.ino, w.size, w.end = f, inode(fi), fi.Size(), -1
	return w.size, nil
}

// rotateIfFull renames the files one number up (dropping the oldest) and
// starts a new log when adding n bytes to the current size would pass
// MaxBytes. The caller holds the flock.
func (w *Writer) rotateIfFull(size, n int64) error {
	if w.opts.MaxBytes < 0 || size == 0 || size+n <= w.opts.MaxBytes {
		return nil
	}
	if w.opts.Keep == 0 {
		if err := os.Remove(w.path); err != nil {
			return fmt.Errorf("audit log: rotate: %w", err)
		}
		_, err := w.reopen()
		return err
	}
	if err := os.Remove(rotated(w.path, w.opts.Keep)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("audit log: drop oldest: %w", err)
	}
	for i := w.opts.Keep - 1; i >= 1; i-- {
		if err := os.Rename(rotated(w.path, i), rotated(w.path, i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("audit log: rotate: %w", err)
		}
	}
	if err := os.Rename(w.path, rotated(w.path, 1)); err != nil {
		return fmt.Errorf("audit log: rotate: %w", err)
	}
	_, err := w.reopen()
	return err
}

// Close closes the log. Later appends fail with store.ErrClosed.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	qerr := w.writeQueued()
	w.closed = true
	errs := []error{qerr}
	if w.f != nil {
		errs = append(errs, w.f.Close())
	}
	if w.lock != nil {
		errs = append(errs, w.lock.Close())
	}
	return errors.Join(errs...)
}

// rotated names the i-th rotated file (0: the current one).
func rotated(path string, i int) string {
	if i == 0 {
		return path
	}
	return path + "." + strconv.Itoa(i)
}
