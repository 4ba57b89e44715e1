package fsstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"syscall"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/recentids"
)

// journalName is the dedup journal in an agent's state/ folder: the ids of
// handled messages, one a line, oldest first.
const journalName = "acked.log"

// journalKeep is how many ids the journal remembers; the file is compacted
// to that many when it holds twice as many lines.
const journalKeep = 10000

// journal remembers the ids of the last messages handled, in memory and
// in an append-only file, so that a retried send or a claim recovered after
// a crash is not handed out again. Only ids of the form envelope.NewID
// makes are kept: nanobot's ids are not unique. It is not safe for
// concurrent use (the Inbox guards it), except syncNow, which a group
// commit calls from its own goroutine.
//
// add writes a line without syncing it; the Inbox makes it durable with
// the acknowledgement's group commit (syncNow), so that one fsync of the
// journal serves every id of a batch.
type journal struct {
	path  string
	sync  bool
	keep  int
	fmu   sync.RWMutex   // read-held by syncNow; write-held by compact and close to replace f
	f     *os.File       // append handle
	ids   *recentids.Set // the last keep ids
	lines int            // lines in the file
	torn  bool           // the file does not end with a whole line: the next add starts one
}

// openJournal loads the tail of the journal at path and opens it for
// appending, creating it (mode 0600) if missing.
func openJournal(path string, keep int, sync bool) (*journal, error) {
	j := &journal{path: path, sync: sync, keep: keep, ids: recentids.New(keep)} // grown as ids come: a new agent's is empty
	tail, err := readTail(path, int64(keep)*2*64)
	if err != nil {
		return nil, fmt.Errorf("read journal %s: %w", path, err)
	}
	torn := len(tail) > 0 && tail[len(tail)-1] != '\n'
	for line := range bytes.SplitSeq(tail, []byte{'\n'}) {
		if id := string(line); envelope.IsOwnID(id) {
			j.ids.Add(id)
			j.lines++
		}
	}
	if j.f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|noFollow, 0o600); err != nil {
		return nil, fmt.Errorf("open journal: %w", err)
	}
	j.torn = torn // a crash cut the last line: the next id starts a new one
	return j, nil
}

// readTail returns at most the last n bytes of the file at path, starting
// at a line boundary; nothing if the file does not exist. A FIFO in its
// place fails (O_NONBLOCK: the open does not wait for a writer).
func readTail(path string, n int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	start := max(0, fi.Size()-n)
	data, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return nil, err
	}
	if start > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return data, nil
}

// has reports whether id was handled.
func (j *journal) has(id string) bool { return j.ids.Has(id) }

// add records id as handled (ids envelope.IsOwnID rejects are ignored).
// written reports a line written, which syncNow makes durable.
func (j *journal) add(id string) (written bool, err error) {
	if !envelope.IsOwnID(id) || j.has(id) {
		return false, nil
	}
	b := make([]byte, 0, len(id)+2)
	if j.torn {
		b = append(b, '\n')
	}
	b = append(append(b, id...), '\n')
	n, err := j.f.Write(b)
	if n > 0 {
		j.torn = n < len(b) // cut short (a full disk): the next id starts a new line
	}
	if err != nil {
		return false, fmt.Errorf("append to journal %s: %w", j.path, err)
	}
	j.ids.Add(id)
	j.lines++
	return true, nil
}

// syncNow fsyncs the journal: every line add wrote before is durable.
func (j *journal) syncNow() error {
	j.fmu.RLock()
	defer j.fmu.RUnlock()
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sync journal %s: %w", j.path, err)
	}
	return nil
}

// needsCompaction reports a file with twice the lines it must keep.
func (j *journal) needsCompaction() bool { return j.lines > 2*j.keep }

// compact replaces the file with the ids held in memory.
func (j *journal) compact() error {
	var b strings.Builder
	for id := range j.ids.All() {
		b.WriteString(id)
		b.WriteByte('\n')
	}
	if err := writeFileAtomic(j.path, []byte(b.String()), j.sync); err != nil {
		return fmt.Errorf("compact journal %s: %w", j.path, err)
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND|noFollow, 0o600)
	if err != nil {
		return fmt.Errorf("reopen journal %s: %w", j.path, err)
	}
	j.fmu.Lock()
	old := j.f
	j.f, j.lines, j.torn = f, j.ids.Len(), false
	j.fmu.Unlock()
	old.Close()
	return nil
}

// close closes the file.
func (j *journal) close() error {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	return j.f.Close()
}
