package audit

import (
	"errors"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Enqueue adds ev to the lines the Writer writes next, without waiting
// for the write: a background flush starts at once when none is running
// and writes every line queued meanwhile in one write under one hold of
// the flock, so a receiver that logs a line per step of every message
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

// flushQueued writes queued lines until none is left.
func (w *Writer) flushQueued() {
	for {
		w.qmu.Lock()
		if len(w.queue) == 0 {
			w.flushing = false
			w.qmu.Unlock()
			return
		}
		w.qmu.Unlock()
		w.mu.Lock()
		err := w.writeQueued()
		w.mu.Unlock()
		if err != nil && !errors.Is(err, store.ErrClosed) && w.opts.OnError != nil {
			w.opts.OnError(err)
		}
	}
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
	w.queue = nil
	w.qmu.Unlock()
	for _, ev := range q {
		b = w.encode(b, ev)
	}
	return b
}

// dropQueued empties the queue when its lines cannot be written.
func (w *Writer) dropQueued() {
	w.qmu.Lock()
	w.queue = nil
	w.qmu.Unlock()
}
