package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// The agents of every run.
const (
	senderID   = "bench-tx"
	receiverID = "bench-rx"
)

// Keys of the data part that every probe message carries. The values are
// strings: a JSON number would lose the nanoseconds.
const (
	keySeq    = "seq"
	keySentNs = "sent_ns"
)

// probe builds message seq, sent at sent, with text as its text part.
// It goes through route.Compose, as the channel's Post and the command
// line's send do.
func probe(seq int, sent time.Time, text string) (*envelope.Message, error) {
	return probeTo(receiverID, seq, sent, text)
}

// probeTo is probe addressed to the agent to.
func probeTo(to string, seq int, sent time.Time, text string) (*envelope.Message, error) {
	data := map[string]any{keySeq: strconv.Itoa(seq), keySentNs: strconv.FormatInt(sent.UnixNano(), 10)}
	return route.Compose(senderID, route.Request{
		To: to, Text: text, Parts: []envelope.Part{envelope.DataPart(data)},
	}, route.ComposeOptions{Now: sent})
}

// readProbe returns the sequence number and send time of a probe that
// came off the bus.
func readProbe(in bus.InboundMessage) (seq int, sentNs int64, ok bool) {
	mt, found := meta.Of(in.Metadata)
	if !found {
		return 0, 0, false
	}
	for _, p := range mt.Parts {
		if p.Type != envelope.PartData {
			continue
		}
		s, _ := p.Data[keySeq].(string)
		t, _ := p.Data[keySentNs].(string)
		var err1, err2 error
		seq, err1 = strconv.Atoi(s)
		sentNs, err2 = strconv.ParseInt(t, 10, 64)
		return seq, sentNs, err1 == nil && err2 == nil
	}
	return 0, 0, false
}

// sender delivers probes through the store a mailbox channel with the
// default configuration opens (filesystem, audit log on), as the channel's
// Post and `switchboard send` do.
type sender struct {
	st   *store.Store
	text string
}

// openSender opens the store at root; fsync off is channels.mailbox.fsync
// false (the store's NoSync).
func openSender(root string, fsync bool, size int) (*sender, error) {
	cfg := mailbox.DefaultConfig()
	cfg.AgentID, cfg.MailboxesRoot, cfg.Fsync = senderID, root, fsync
	st, err := store.Open(cfg.Backend, cfg.StoreConfig())
	if err != nil {
		return nil, err
	}
	return &sender{st: st, text: strings.Repeat("m", size)}, nil
}

// send composes and delivers probe seq. t0 is taken before composing (it
// is the send time written in the message) and t1 when Deliver returned.
func (s *sender) send(ctx context.Context, seq int) (t0, t1 time.Time, err error) {
	t0 = time.Now()
	msg, err := probe(seq, t0, s.text)
	if err != nil {
		return t0, t0, err
	}
	if err := s.st.Deliver(ctx, msg); err != nil {
		return t0, t0, fmt.Errorf("send %d: %w", seq, err)
	}
	return t0, time.Now(), nil
}

// fileBytes is the size of a probe file as it lands in the inbox.
func (s *sender) fileBytes() int {
	msg, err := probe(0, time.Now(), s.text)
	if err != nil {
		return 0
	}
	data, err := envelope.EncodeCompact(msg) // as fsstore.Deliver writes it
	if err != nil {
		return 0
	}
	return len(data)
}

// close closes the store.
func (s *sender) close() error { return s.st.Close() }
