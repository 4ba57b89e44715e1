package envelope_test

import (
	"testing"
	"time"

	"github.com/nats-io/nkeys"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// benchMessages are a typical chat message (about 400 bytes compact) and
// a task with a callback and text, data and file parts.
func benchMessages() []struct {
	name string
	msg  *envelope.Message
} {
	ts := envelope.NewTime(time.Date(2026, 4, 26, 10, 0, 0, 123456000, time.UTC))
	typical := &envelope.Message{
		ID: "0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", From: "researcher", To: "coder",
		Timestamp: ts, Type: envelope.TypeMessage, TTL: 2, Trace: []string{"researcher"},
		Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(
			"Could you look at the flaky test in store/fsstore? It fails about one run in fifty " +
				"on the CI machines since yesterday's change to the watcher.")}},
		ThreadID: "0196a1b2-0000-7000-8000-000000000001", Subject: "flaky-test",
		ExpectsReply: true, Priority: 1,
	}
	return []struct {
		name string
		msg  *envelope.Message
	}{{"typical", typical}, {"task", fullMessage()}}
}

func BenchmarkDecodeBytes(b *testing.B) {
	for _, bm := range benchMessages() {
		data, err := envelope.EncodeCompact(bm.msg)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bm.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := envelope.DecodeBytes(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeCompact(b *testing.B) { benchEncode(b, envelope.EncodeCompact) }

func BenchmarkEncode(b *testing.B) { benchEncode(b, envelope.Encode) }

func benchEncode(b *testing.B, encode func(*envelope.Message) ([]byte, error)) {
	for _, bm := range benchMessages() {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encode(bm.msg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSign is what a sender adds per message: the canonical form
// (RFC 8785) of the message and an ed25519 signature of it.
func BenchmarkSign(b *testing.B) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		b.Fatal(err)
	}
	for _, bm := range benchMessages() {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m := *bm.msg
				if err := envelope.Sign(&m, kp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerifySignature is what a receiver adds per message, the
// sender's key in hand: the canonical form and the ed25519 check.
func BenchmarkVerifySignature(b *testing.B) {
	kp, err := nkeys.CreateUser()
	if err != nil {
		b.Fatal(err)
	}
	for _, bm := range benchMessages() {
		m := *bm.msg
		if err := envelope.Sign(&m, kp); err != nil {
			b.Fatal(err)
		}
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := envelope.VerifySignature(&m, kp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
