package natsstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// HeaderPriority is the header of a message published on a priority
// subject: its priority, "1" to "3".
const HeaderPriority = "Mailbox-Priority"

// The W3C Trace Context headers a message carries when it names the span
// that sent it (envelope.Message.Traceparent and Tracestate), so that a
// tool reading the stream joins the trace without decoding the message.
const (
	HeaderTraceparent = "traceparent"
	HeaderTracestate  = "tracestate"
)

// Deliver implements driver.Sender. It validates msg, encodes it on one line
// (envelope.EncodeCompact: cheaper to make and to decode than the indented
// form of the filesystem's files) within the size cap, and publishes it on
// mailbox.<to>.inbox.<from>, or on mailbox.<to>.priority.<from> with
// HeaderPriority when its priority is 1 to 3, waiting for the stream's
// acknowledgement: once Deliver returns nil the message is stored (on
// Replicas servers). The Nats-Msg-Id is the recipient and the message id,
// so a publish retried within the duplicate window is dropped by the
// stream.
func (s *Store) Deliver(ctx context.Context, msg *envelope.Message) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	data, err := driver.EncodeForDelivery(msg, s.opts.MaxMessageBytes, envelope.EncodeCompact)
	if err != nil {
		return err
	}
	var m *nats.Msg
	if p := msg.Priority; p > 0 { // 1 to 3: EncodeForDelivery validated it
		m = nats.NewMsg(s.names.priority(msg.To, msg.From))
		m.Header.Set(HeaderPriority, strconv.Itoa(p))
	} else {
		m = nats.NewMsg(s.names.inbox(msg.To, msg.From))
	}
	m.Data = data
	m.Header.Set(jetstream.MsgIDHeader, publishID(msg, data))
	setTraceHeaders(m.Header, msg)
	ack, again, err := s.publish(ctx, m)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			err = fmt.Errorf("%w (%v)", cerr, err)
		}
		return fmt.Errorf("deliver %s to %q: %w", msg.ID, msg.To, err)
	}
	if ack.Duplicate && !again { // sent again: most likely its own first copy, whose event is due
		s.opts.Logger.Debug("message already in the stream", "id", msg.ID, "to", msg.To)
		return nil
	}
	if s.observed() {
		s.emit(driver.Event{Kind: driver.EventSent, Agent: msg.To, MessageID: msg.ID, From: msg.From,
			Ref: ref(ack.Sequence), ThreadID: msg.ThreadID, TaskID: msg.TaskOf()})
	}
	return nil
}

// publishID is the Nats-Msg-Id of msg: the recipient and the id, plus a
// hash of the bytes for ids that are not unique (nanobot's).
func publishID(msg *envelope.Message, data []byte) string {
	if envelope.IsOwnID(msg.ID) {
		return msg.To + ":" + msg.ID
	}
	sum := sha256.Sum256(data)
	return msg.To + ":" + msg.ID + ":" + hex.EncodeToString(sum[:8])
}

// setTraceHeaders copies msg's trace context into h.
func setTraceHeaders(h nats.Header, msg *envelope.Message) {
	if msg.Traceparent != "" {
		h.Set(HeaderTraceparent, msg.Traceparent)
		if msg.Tracestate != "" {
			h.Set(HeaderTracestate, msg.Tracestate)
		}
	}
}

// traceFromHeaders gives msg the trace context of h when msg has none of
// its own: a publisher that puts the context only in the headers (as
// OpenTelemetry's NATS instrumentations do) is joined too.
func traceFromHeaders(h nats.Header, msg *envelope.Message) {
	if msg.Traceparent != "" || h == nil {
		return
	}
	msg.Traceparent, msg.Tracestate = h.Get(HeaderTraceparent), h.Get(HeaderTracestate)
}
