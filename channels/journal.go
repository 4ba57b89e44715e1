package channels

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
)

// maxJournalLine caps one journal line (a message and its metadata).
const maxJournalLine = 8 << 20

// Journal keeps a channel's inbound messages on disk from the moment the
// channel takes them in until the agent has finished with them, so that a
// crash or a stop loses none: a chat channel answers its platform only
// once Add returned, and a restarted channel hands over again, with
// Pending, what was taken in and not finished. It is an append-only file of
// JSON lines (a message taken in, a message finished), compacted when it is
// opened. It is safe for concurrent use.
type Journal struct {
	path string
	seq  atomic.Int64

	mu   sync.Mutex
	f    *os.File
	open map[string]bus.InboundMessage // taken in, not finished, by id
	// order keeps Pending in the order the messages were taken in.
	order []string
}

// journalLine is one line of the file.
type journalLine struct {
	// Op is "in" (Msg taken in) or "done" (ID finished, or dropped).
	Op  string              `json:"op"`
	ID  string              `json:"id"`
	Msg *bus.InboundMessage `json:"msg,omitempty"`
}

// OpenJournal opens (creating it, and its folder, private to the user) the
// journal at path. The messages an earlier run took in and did not finish
// are kept for Pending; the file is rewritten with them alone. A torn last
// line (a crash while writing) is dropped: the write it belonged to had
// not returned, so its message was never accepted.
func OpenJournal(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	j := &Journal{path: path, open: map[string]bus.InboundMessage{}}
	if err := j.load(); err != nil {
		return nil, err
	}
	if err := j.compact(); err != nil {
		return nil, err
	}
	return j, nil
}

// load reads the file into j.open.
func (j *Journal) load() error {
	data, err := os.ReadFile(j.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxJournalLine)
	for n := 1; sc.Scan(); n++ {
		var l journalLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.ID == "" {
			continue // torn or foreign: skipped
		}
		switch {
		case l.Op == "in" && l.Msg != nil:
			if _, ok := j.open[l.ID]; !ok {
				j.order = append(j.order, l.ID)
			}
			j.open[l.ID] = *l.Msg
		case l.Op == "done":
			delete(j.open, l.ID)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// compact rewrites the file with the open messages alone, atomically, and
// opens it for appending.
func (j *Journal) compact() error {
	var buf bytes.Buffer
	var order []string
	for _, id := range j.order {
		m, ok := j.open[id]
		if !ok {
			continue
		}
		order = append(order, id)
		if err := appendLine(&buf, journalLine{Op: "in", ID: id, Msg: &m}); err != nil {
			return err
		}
	}
	j.order = order
	tmp := j.path + ".tmp"
	if err := writeSynced(tmp, buf.Bytes()); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	if err := os.Rename(tmp, j.path); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	j.f = f
	return nil
}

// Add records msg durably (written and synced) before the channel answers
// its platform, and returns it with an ID (msg's own, or a new one) and an
// Ack that records it finished. A message whose ID is already open (a
// platform's retry of an event still in hand) is not added again: ok is
// false then.
func (j *Journal) Add(msg bus.InboundMessage) (out bus.InboundMessage, ok bool, err error) {
	if msg.ID == "" {
		msg.ID = fmt.Sprintf("j%d-%d", time.Now().UnixNano(), j.seq.Add(1))
	}
	msg.Ack = nil
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return msg, false, fmt.Errorf("journal %s: %w", j.path, os.ErrClosed)
	}
	if _, dup := j.open[msg.ID]; dup {
		return msg, false, nil
	}
	if err := j.writeLocked(journalLine{Op: "in", ID: msg.ID, Msg: &msg}); err != nil {
		return msg, false, err
	}
	j.open[msg.ID] = msg
	j.order = append(j.order, msg.ID)
	msg.Ack = j.finisher(msg.ID)
	return msg, true, nil
}

// Drop forgets a message Add took in that the channel could not hand over
// after all (it told its platform so, and the platform sends it again).
func (j *Journal) Drop(id string) error { return j.finish(id) }

// Pending returns what was taken in and not finished, in the order it was
// taken in, each marked Redelivered and with an Ack that records it
// finished.
func (j *Journal) Pending() []bus.InboundMessage {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]bus.InboundMessage, 0, len(j.open))
	for _, id := range j.order {
		if m, ok := j.open[id]; ok {
			m.Redelivered, m.Ack = true, j.finisher(id)
			out = append(out, m)
		}
	}
	return out
}

// finisher is the Ack of message id.
func (j *Journal) finisher(id string) func() {
	var once sync.Once
	return func() { once.Do(func() { _ = j.finish(id) }) }
}

// finish records id finished. A failure only means the message is handed
// over again after a restart, which the agent recognises by its ID.
func (j *Journal) finish(id string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.open[id]; !ok {
		return nil
	}
	delete(j.open, id)
	if j.f == nil {
		return nil // closed: it comes back on the next start
	}
	return j.writeLocked(journalLine{Op: "done", ID: id})
}

// writeLocked appends one line and syncs the file.
func (j *Journal) writeLocked(l journalLine) error {
	var buf bytes.Buffer
	if err := appendLine(&buf, l); err != nil {
		return err
	}
	if buf.Len() > maxJournalLine {
		return fmt.Errorf("journal %s: message %s too large (%d bytes, the cap is %d)", j.path, l.ID, buf.Len(), maxJournalLine)
	}
	if _, err := j.f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// Close closes the file; what is open stays for the next OpenJournal.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

func appendLine(w io.Writer, l journalLine) error {
	data, err := json.Marshal(l)
	if err != nil {
		return fmt.Errorf("journal: encode %s: %w", l.ID, err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// writeSynced writes data to a new file at path, mode 0600, and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
