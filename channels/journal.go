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
// Pending, what was taken in and not finished.
//
// It also remembers the ids of the messages finished in the last
// DedupWindow (at most maxSeen of them), across restarts: a platform that
// delivers an event again (it did not hear the channel's answer, or it
// retries after the channel restarted) is not answered twice (Add, Seen).
//
// It is an append-only file of JSON lines (a message taken in, finished,
// or dropped), compacted when it is opened and when it has grown well
// beyond what it holds. It is safe for concurrent use.
type Journal struct {
	path string
	seq  atomic.Int64

	mu   sync.Mutex
	f    *os.File
	open map[string]bus.InboundMessage // taken in, not finished, by id
	// order keeps the open messages in the order they were taken in.
	order []string
	// earlier holds the ids of the messages an earlier run left open,
	// which Pending returns.
	earlier map[string]bool
	seen    finished // ids finished lately
	// dead counts the lines that compacting would drop (a finished
	// message's "in", a dropped one's two); at more than compactAfter, and
	// a quarter of what the journal holds, it compacts itself.
	dead         int
	compactAfter int
}

// journalLine is one line of the file.
type journalLine struct {
	// Op is "in" (Msg taken in), "done" (ID finished at At) or "drop" (ID
	// not taken after all: forgotten).
	Op  string              `json:"op"`
	ID  string              `json:"id"`
	Msg *bus.InboundMessage `json:"msg,omitempty"`
	// At is when a message was finished, in Unix milliseconds.
	At int64 `json:"at,omitempty"`
}

// OpenJournal opens (creating it, and its folder, private to the user) the
// journal at path. The messages an earlier run took in and did not finish
// are kept for Pending, and the ids it finished within DedupWindow are
// remembered; the file is rewritten with these alone. A torn last line (a
// crash while writing) is dropped: the write it belonged to had not
// returned, so its message was never accepted.
func OpenJournal(path string) (*Journal, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	j := &Journal{path: path, open: map[string]bus.InboundMessage{}, seen: newFinished(), compactAfter: 4096}
	if err := j.load(); err != nil {
		return nil, err
	}
	if err := j.compact(); err != nil {
		return nil, err
	}
	j.earlier = make(map[string]bool, len(j.open))
	for id := range j.open {
		j.earlier[id] = true
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
			j.seen.add(l.ID, time.UnixMilli(l.At))
		case l.Op == "drop":
			delete(j.open, l.ID)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	return nil
}

// compact rewrites the file with the open messages and the ids finished
// lately alone, atomically, and opens it for appending.
func (j *Journal) compact() error {
	var buf bytes.Buffer
	j.seen.expire(time.Now())
	for id, at := range j.seen.all() {
		if err := appendLine(&buf, journalLine{Op: "done", ID: id, At: at.UnixMilli()}); err != nil {
			return err
		}
	}
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
	j.dead = 0
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
	if j.f != nil {
		_ = j.f.Close() // the file it wrote was replaced whole
	}
	j.f = f
	return nil
}

// Add records msg durably (written and synced) before the channel answers
// its platform, and returns it with an ID (msg's own, or a new one) and an
// Ack that records it finished. A message whose ID is open (a platform's
// retry of an event still in hand) or was finished lately (a retry of an
// event answered, in this run or an earlier one) is not added again: ok
// is false then, and the channel answers its platform that it was taken.
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
	if j.seenLocked(msg.ID) {
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
// after all (it told its platform so, and the platform sends it again):
// unlike a finished one, it is taken when it comes again.
func (j *Journal) Drop(id string) error { return j.finish(id, false) }

// Seen reports whether a message with this id is in hand or was finished
// lately: a channel asks before it does work for an event (downloads its
// media), and answers a platform's retry at once.
func (j *Journal) Seen(id string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seenLocked(id)
}

func (j *Journal) seenLocked(id string) bool {
	if _, ok := j.open[id]; ok {
		return true
	}
	return j.seen.has(id, time.Now())
}

// Pending returns what an earlier run took in and did not finish (and
// this run has not finished since), in the order it was taken in, each
// marked Redelivered and with an Ack that records it finished. What this
// run took in is not among them: Pending may be called while the channel
// takes messages in.
func (j *Journal) Pending() []bus.InboundMessage {
	j.mu.Lock()
	defer j.mu.Unlock()
	out := make([]bus.InboundMessage, 0, len(j.earlier))
	for _, id := range j.order {
		if m, ok := j.open[id]; ok && j.earlier[id] {
			m.Redelivered, m.Ack = true, j.finisher(id)
			out = append(out, m)
		}
	}
	return out
}

// finisher is the Ack of message id.
func (j *Journal) finisher(id string) func() {
	var once sync.Once
	return func() { once.Do(func() { _ = j.finish(id, true) }) }
}

// finish records id finished (remembered, for Seen) or dropped. A failure
// only means the message is handed over again after a restart, which the
// agent recognises by its ID.
func (j *Journal) finish(id string, remember bool) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.open[id]; !ok {
		return nil
	}
	if j.f == nil {
		return nil // closed: it comes back on the next start
	}
	l := journalLine{Op: "drop", ID: id}
	now := time.Now()
	if remember {
		l = journalLine{Op: "done", ID: id, At: now.UnixMilli()}
	}
	if err := j.writeLocked(l); err != nil {
		return err
	}
	delete(j.open, id)
	j.dead += 2
	if remember {
		j.seen.add(id, now)
		j.dead--
	}
	if j.dead > max(j.compactAfter, (len(j.open)+j.seen.len())/4) {
		return j.compact()
	}
	return nil
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
