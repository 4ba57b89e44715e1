package audit

import (
	"errors"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// queueDelay is how long lines queued while a background write runs wait
// for others before the next one: a receiver taking thousands of messages
// a second then writes tens of lines per write and flock instead of two
// or three. A line queued while none runs is written at once, so a
// process killed right after it loses no more than before.
const queueDelay = time.Millisecond

// Enqueue adds ev to the lines the Writer writes next, without waiting
// for the write: a background flush starts at once when none is running
// and writes every line queued meanwhile in one write under one hold of
// the flock; lines queued during that write are written queueDelay after
// it, together. So a receiver that logs a line per step of every message
// pays one write per batch. The next Append, AppendBatch, Locked or Flush
// writes the queued lines first, so this process's lines keep their
// order. A failed background write is reported to Options.OnError.
func (w *Writer) Enqueue(ev store.Event) {
	w.qmu.Lock()
	defer w.qmu.Unlock()
	w.queue = append(w.queue, ev)
	if !w.flushing {
		w.flushing = true
		go w.flushQueued()
	}
}

// Flush writes the queued lines now (see Enqueue).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writeQueued()
}

// flushQueued writes the queued lines, and comes back queueDelay later
// when more were queued meanwhile.
func (w *Writer) flushQueued() {
	w.mu.Lock()
	err := w.writeQueued()
	w.mu.Unlock()
	if err != nil && !errors.Is(err, store.ErrClosed) && w.opts.OnError != nil {
		w.opts.OnError(err)
	}
	w.qmu.Lock()
	defer w.qmu.Unlock()
	if len(w.queue) == 0 {
		w.flushing = false
		return
	}
	time.AfterFunc(queueDelay, w.flushQueued)
}

// writeQueued writes the queued lines. The caller holds w.mu.
func (w *Writer) writeQueued() error {
	w.qmu.Lock()
	empty := len(w.queue) == 0
	w.qmu.Unlock()
	if empty {
		return nil // touches nothing: see Open
	}
	if w.closed {
		w.dropQueued()
		return store.ErrClosed
	}
	if err := w.lockFile(); err != nil {
		w.dropQueued()
		return err
	}
	defer unlock(w.lock)
	w.buf = w.takeQueued(w.buf[:0])
	if len(w.buf) == 0 {
		return nil
	}
	return w.write(w.buf)
}

// takeQueued empties the queue, appending its lines to b. The caller
// holds w.mu.
func (w *Writer) takeQueued(b []byte) []byte {
	w.qmu.Lock()
	q := w.queue
	w.queue, w.spare = w.spare[:0], nil // the next lines go to the other slice: no growing anew
	w.qmu.Unlock()
	for _, ev := range q {
		b = w.encode(b, ev)
	}
	clear(q) // let the events' strings go
	w.qmu.Lock()
	w.spare = q[:0]
	w.qmu.Unlock()
	return b
}

// dropQueued empties the queue when its lines cannot be written.
func (w *Writer) dropQueued() {
	w.qmu.Lock()
	w.queue = nil
	w.qmu.Unlock()
}
