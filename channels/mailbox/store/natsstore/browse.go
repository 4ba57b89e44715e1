package natsstore

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var (
	_ driver.Browser     = (*Store)(nil)
	_ driver.TaskSweeper = (*Inbox)(nil)
)

// historyCopy is a message as the history stream holds it.
type historyCopy struct {
	seq     uint64 // in the main stream
	subject string // in the main stream
	agent   string // the recipient, named by the subject
	msg     *envelope.Message
}

// sweptMarker is the body of a swept marker.
type sweptMarker struct {
	Task string   `json:"task"`
	Seqs []uint64 `json:"seqs"`
}

// sweptKey names a message swept by its recipient: a marker counts only
// for the messages of the agent that wrote it.
type sweptKey struct {
	agent string
	seq   uint64
}

// Browse implements driver.Browser. It reads the copies of the messages in
// the history stream and finds where each one is from the main stream's
// state: still in the stream and not yet handed out (BoxInbox), handed out
// and not yet acknowledged (BoxClaimed; this includes a message the inbox
// pulled ahead), acknowledged (BoxProcessed), acknowledged and swept by
// SweepTask (BoxArchive). A message set aside (on the dead-letter subject)
// is left out, as the filesystem leaves out rejected/. Ref is "#" and the
// message's sequence in the main stream, as in the store's events.
//
// The history is a view of what the stream stored within the history's
// bounds (historyMaxAge, historyMaxBytes): a message older than those, or
// one whose copy the server could not store, is not found. The server
// republishes a message moments after storing it; Browse waits (a little)
// for the copies of what the stream held when it began, so a message
// stored before the call is found. Reading it
// needs the permission to read the whole history stream: see
// docs/backends.md. Without the history (Options.NoHistory) it fails with
// ErrNoHistory.
func (s *Store) Browse(ctx context.Context, fn func(driver.Stored) bool) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	if err := s.needHistory("browse the mailbox"); err != nil {
		return err
	}
	st, err := s.readMainState(ctx)
	if err != nil {
		return err
	}
	var copies []historyCopy
	swept := map[sweptKey]bool{}
	var seen uint64 // the last main-stream sequence a copy came of
	target := st.lastCopied(s)
	err = s.readHistory(ctx, []string{s.names.historyFilter(), s.names.sweptFilter()}, func(m jetstream.Msg) bool {
		if agent, ok := s.sweptMarkerAgent(m); ok {
			for _, seq := range decodeMarker(m).Seqs {
				swept[sweptKey{agent, seq}] = true
			}
			return true
		}
		if seq, err := strconv.ParseUint(m.Headers().Get(jetstream.SequenceHeader), 10, 64); err == nil {
			seen = max(seen, seq)
		}
		if c, ok := s.decodeCopy(m); ok {
			copies = append(copies, c)
		}
		return true
	}, func() bool { return seen >= target })
	if err != nil || len(copies) == 0 {
		return err
	}
	boxes, err := st.boxes(ctx, s, copies)
	if err != nil {
		return err
	}
	for i, c := range copies {
		box := boxes[i]
		switch {
		case box == "": // set aside
			continue
		case box == driver.BoxProcessed && swept[sweptKey{c.agent, c.seq}]:
			box = driver.BoxArchive
		}
		if !fn(driver.Stored{Message: c.msg, Agent: c.agent, Box: box, Ref: ref(c.seq)}) {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// decodeCopy reads a copy of a message; ok is false for anything else, or
// a copy that does not decode.
func (s *Store) decodeCopy(m jetstream.Msg) (historyCopy, bool) {
	tok := s.names.split(m.Subject())
	h := m.Headers()
	if len(tok) != 3 || tok[1] != historyToken || h.Get(jetstream.StreamHeader) != s.opts.Stream {
		return historyCopy{}, false
	}
	seq, err := strconv.ParseUint(h.Get(jetstream.SequenceHeader), 10, 64)
	if err != nil || int64(len(m.Data())) > s.opts.MaxMessageBytes {
		return historyCopy{}, false
	}
	agent, err := untoken(tok[0])
	if err != nil {
		return historyCopy{}, false
	}
	msg, err := envelope.DecodeBytes(m.Data())
	if err != nil {
		return historyCopy{}, false
	}
	return historyCopy{seq: seq, subject: h.Get(jetstream.SubjectHeader), agent: agent, msg: msg}, true
}

// sweptMarkerAgent reports whether m is a swept marker, and whose.
func (s *Store) sweptMarkerAgent(m jetstream.Msg) (string, bool) {
	tok := s.names.split(m.Subject())
	if len(tok) != 2 || tok[1] != sweptToken {
		return "", false
	}
	agent, err := untoken(tok[0])
	return agent, err == nil
}

// decodeMarker decodes a swept marker; one that does not decode names
// nothing.
func decodeMarker(m jetstream.Msg) sweptMarker {
	var mk sweptMarker
	if err := json.Unmarshal(m.Data(), &mk); err != nil {
		return sweptMarker{}
	}
	return mk
}
