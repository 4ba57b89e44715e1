package natsstore

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// The audit entries a store writes are buffered and published together,
// as one message of JSON lines on the subject of the agent that wrote
// them, so that a message's way through an inbox (claimed, processed, ...)
// costs the server a fraction of a stored message rather than one per
// entry. A batch goes out when auditBatch entries are buffered, auditDelay
// after the first of them, before the store reads its own log
// (ReadAudit) and on Close. A crash loses what is buffered: the last
// auditDelay of entries, more while the server is slow to take them (up
// to auditMaxBuffered), never a message.
const (
	auditBatch = 64
	auditDelay = 25 * time.Millisecond
	// auditMaxBuffered bounds the entries waiting while the server does
	// not take them; beyond it new entries are dropped (and counted).
	auditMaxBuffered = 1 << 16
	// auditMaxBytes bounds one published batch (and the server's
	// max_payload, whichever is smaller): more entries make more batches.
	auditMaxBytes = 256 << 10
)

// auditWait bounds how long Close and ReadAudit wait for the buffered
// entries to be stored, and each publish of a batch.
const auditWait = 5 * time.Second

// auditEntry is one buffered entry and the subject it goes to.
type auditEntry struct {
	subject string
	ev      driver.Event
}

// auditLog buffers a store's audit entries and publishes them from a
// goroutine of its own: adding an entry never waits for the server.
type auditLog struct {
	js     jetstream.JetStream
	log    *slog.Logger
	max    int    // bytes of one batch
	idBase string // Nats-Msg-Id prefix of this store's batches

	mu      sync.Mutex
	buf     []auditEntry
	spare   []auditEntry  // the buffer before last, for reuse
	added   uint64        // entries ever added (dropped ones included)
	done    uint64        // entries published or given up, oldest first
	doneCh  chan struct{} // closed and replaced when done grows
	timer   *time.Timer   // runs from the first buffered entry
	closed  bool
	dropped int // entries dropped over auditMaxBuffered, not yet logged

	wake   chan struct{} // buffered 1: publish what is buffered
	quit   chan struct{}
	exited chan struct{}
	ctx    context.Context // ends the publishes at Close
	cancel context.CancelFunc

	// Used by the publishing goroutine only.
	data    bytes.Buffer // a batch being encoded
	enc     *json.Encoder
	batches uint64
	failing bool
	lost    int
}

// newAuditLog starts the batcher of s's audit entries.
func newAuditLog(s *Store) *auditLog {
	max := auditMaxBytes
	if p := int(s.nc.MaxPayload()); p > 0 && p/2 < max {
		max = p / 2
	}
	a := &auditLog{js: s.js, log: s.opts.Logger, max: max, idBase: "audit:" + envelope.NewID() + ":",
		doneCh: make(chan struct{}), wake: make(chan struct{}, 1), quit: make(chan struct{}),
		exited: make(chan struct{})}
	a.enc = json.NewEncoder(&a.data) // one line per entry
	a.ctx, a.cancel = context.WithCancel(context.Background())
	go a.run()
	return a
}

// add buffers ev for subject.
func (a *auditLog) add(subject string, ev driver.Event) {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return
	}
	a.added++
	if len(a.buf) >= auditMaxBuffered {
		a.dropped++
		a.mu.Unlock()
		return
	}
	a.buf = append(a.buf, auditEntry{subject: subject, ev: ev})
	n := len(a.buf)
	if n == 1 {
		if a.timer == nil {
			a.timer = time.AfterFunc(auditDelay, a.kick)
		} else {
			a.timer.Reset(auditDelay)
		}
	}
	a.mu.Unlock()
	if n == auditBatch {
		a.kick()
	}
}

// kick makes the publishing goroutine publish what is buffered.
func (a *auditLog) kick() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// flush publishes what is buffered now and waits until it is stored (or
// given up), or ctx ends.
func (a *auditLog) flush(ctx context.Context) error {
	a.mu.Lock()
	target := a.added
	a.mu.Unlock()
	a.kick()
	for {
		a.mu.Lock()
		done, ch := a.done, a.doneCh
		a.mu.Unlock()
		if done >= target {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// close publishes what is buffered, waiting at most auditWait, and stops
// the publishing goroutine; entries added later are dropped.
func (a *auditLog) close() {
	ctx, cancel := context.WithTimeout(context.Background(), auditWait)
	defer cancel()
	err := a.flush(ctx)
	a.mu.Lock()
	a.closed = true
	left := a.added - a.done
	if a.timer != nil {
		a.timer.Stop()
	}
	a.mu.Unlock()
	if err != nil {
		a.log.Warn("audit log entries not stored before closing", "entries", left, "waited", auditWait)
	}
	a.cancel()
	close(a.quit)
	<-a.exited
}

// run publishes the buffered entries each time it is woken, until close.
func (a *auditLog) run() {
	defer close(a.exited)
	for {
		select {
		case <-a.wake:
			a.publishBuffered()
		case <-a.quit:
			return
		}
	}
}

// publishBuffered takes the buffer and publishes it as one batch per
// subject and auditMaxBytes, in the order of the entries.
func (a *auditLog) publishBuffered() {
	a.mu.Lock()
	entries, upto, dropped := a.buf, a.added, a.dropped
	a.buf, a.spare, a.dropped = a.spare[:0], nil, 0
	if a.timer != nil {
		a.timer.Stop()
	}
	a.mu.Unlock()
	if dropped > 0 {
		a.log.Warn("audit log entries dropped: too many waiting for the server", "entries", dropped)
	}
	for i := 0; i < len(entries); {
		subject, n := entries[i].subject, 0
		a.data.Reset()
		for ; i < len(entries) && entries[i].subject == subject; i++ {
			before := a.data.Len()
			if err := a.enc.Encode(entries[i].ev); err != nil {
				a.data.Truncate(before)
				continue
			}
			if n > 0 && a.data.Len() > a.max { // the next batch starts with it
				a.data.Truncate(before)
				break
			}
			n++
		}
		if n > 0 {
			a.publish(subject, a.data.Bytes(), n)
		}
	}
	clear(entries) // drop the strings they hold
	a.mu.Lock()
	if a.spare == nil && cap(entries) <= 4*auditBatch {
		a.spare = entries[:0]
	}
	a.done = upto
	close(a.doneCh)
	a.doneCh = make(chan struct{})
	a.mu.Unlock()
}

// publish stores one batch of n entries, trying twice; the Nats-Msg-Id
// keeps a batch stored by a try whose acknowledgement was lost from being
// stored again. A batch that cannot be stored is logged (once while the
// failures last) and dropped.
func (a *auditLog) publish(subject string, data []byte, n int) {
	a.batches++
	m := nats.NewMsg(subject)
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, a.idBase+strconv.FormatUint(a.batches, 10))
	var err error
	for range 2 {
		ctx, cancel := context.WithTimeout(a.ctx, auditWait)
		_, err = a.js.PublishMsg(ctx, m)
		cancel()
		if err == nil || a.ctx.Err() != nil {
			break
		}
	}
	log := a.log
	switch {
	case err != nil && !a.failing:
		a.failing, a.lost = true, n
		log.Warn("audit log entries not stored (said once until it works again)", "subject", subject,
			"entries", n, "err", err)
	case err != nil:
		a.lost += n
		log.Debug("audit log entries not stored", "subject", subject, "entries", n, "err", err)
	case a.failing:
		log.Info("audit log entries stored again", "subject", subject, "lost", a.lost)
		a.failing, a.lost = false, 0
	}
}

// splitAudit calls fn with each entry of a batch (JSON lines; a single
// entry is a batch of one); lines that do not decode are skipped.
func splitAudit(data []byte, fn func(driver.Event) bool) bool {
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		var ev driver.Event
		if len(line) == 0 || json.Unmarshal(line, &ev) != nil || ev.Kind == "" {
			continue
		}
		if !fn(ev) {
			return false
		}
	}
	return true
}
