package envelope_test

import (
	"bytes"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/nats-io/nkeys"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func newKey(t *testing.T) nkeys.KeyPair {
	t.Helper()
	kp, err := nkeys.CreateUser()
	require.NoError(t, err)
	return kp
}

// signable is a message with every kind of field set.
func signable(t *testing.T) *envelope.Message {
	t.Helper()
	deadline := envelope.NewTime(time.Date(2026, 4, 26, 11, 0, 0, 123456789, time.UTC))
	return &envelope.Message{
		ID: envelope.NewID(), From: "lead", To: "coder",
		Timestamp: envelope.NewTime(time.Date(2026, 4, 26, 10, 0, 0, 987654321, time.UTC)),
		Type:      envelope.TypeTask, TTL: 2, Trace: []string{"lead"},
		Task: &envelope.Task{ID: "task_1", State: envelope.StatePending, Deadline: &deadline,
			Budget: &envelope.Budget{Tokens: 100, Cost: 0.1}},
		Content: envelope.Content{Parts: []envelope.Part{
			envelope.TextPart("sort <a> & \"b\" 排序"),
			envelope.DataPart(map[string]any{"n": int64(1) << 60, "f": 0.1, "nested": map[string]any{"nil": nil, "z": []any{nil, 1}}}),
			envelope.FilePart("/tmp/x"),
		}},
		Callback: &envelope.Callback{Channel: "feishu", ChatID: "oc_1"},
		Metadata: map[string]any{"k": "v", "empty": nil},
		ThreadID: "th", Subject: "sorting", ExpectsReply: true, Priority: 2, HopCount: 1,
		TaskPath: []string{"lead>coder:abc"}, Traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
	}
}

// A signed message verifies after it is written and read back, in both
// forms (the folder's indented files, NATS's compact lines), and still
// after a NATS reader fills traceparent from the headers.
func TestSignatureSurvivesTheWire(t *testing.T) {
	kp := newKey(t)
	m := signable(t)
	require.NoError(t, envelope.Sign(m, kp))
	require.NoError(t, envelope.VerifySignature(m, kp))
	pub, _ := kp.PublicKey()
	assert.Equal(t, pub, m.Signature.Key)
	assert.Equal(t, envelope.SignatureAlg, m.Signature.Alg)

	for name, encode := range map[string]func(*envelope.Message) ([]byte, error){
		"indented": envelope.Encode, "compact": envelope.EncodeCompact} {
		t.Run(name, func(t *testing.T) {
			data, err := encode(m)
			require.NoError(t, err)
			assert.Contains(t, string(data), `"signature"`)
			got, err := envelope.DecodeBytes(data)
			require.NoError(t, err)
			require.NoError(t, envelope.VerifySignature(got, kp))
			got.Traceparent, got.Tracestate = "00-11111111111111111111111111111111-2222222222222222-01", "a=b"
			require.NoError(t, envelope.VerifySignature(got, kp), "the trace context is not signed")
		})
	}
}

// Every field a receiver acts on is covered: changing any of them makes
// the signature fail.
func TestSignatureCoversEveryField(t *testing.T) {
	kp := newKey(t)
	changes := map[string]func(m *envelope.Message){
		"id":            func(m *envelope.Message) { m.ID = "other" },
		"from":          func(m *envelope.Message) { m.From = "mallory" },
		"to":            func(m *envelope.Message) { m.To = "other" },
		"timestamp":     func(m *envelope.Message) { m.Timestamp = envelope.NewTime(m.Timestamp.Add(time.Second)) },
		"type":          func(m *envelope.Message) { m.Type = envelope.TypeTaskUpdate },
		"ttl":           func(m *envelope.Message) { m.TTL++ },
		"trace":         func(m *envelope.Message) { m.Trace = append(m.Trace, "x") },
		"task.state":    func(m *envelope.Message) { m.Task.State = envelope.StateCompleted },
		"task.budget":   func(m *envelope.Message) { m.Task.Budget.Tokens++ },
		"text":          func(m *envelope.Message) { m.Content.Parts[0].Text += "!" },
		"data":          func(m *envelope.Message) { m.Content.Parts[1].Data["f"] = 0.2 },
		"callback":      func(m *envelope.Message) { m.Callback.ChatID = "oc_2" },
		"reply_to":      func(m *envelope.Message) { m.ReplyTo = "x" },
		"metadata":      func(m *envelope.Message) { m.Metadata["k"] = "w" },
		"thread_id":     func(m *envelope.Message) { m.ThreadID = "other" },
		"expects_reply": func(m *envelope.Message) { m.ExpectsReply = false },
		"priority":      func(m *envelope.Message) { m.Priority = 3 },
		"hop_count":     func(m *envelope.Message) { m.HopCount = 0 },
		"task_path":     func(m *envelope.Message) { m.TaskPath = nil },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			m := signable(t)
			require.NoError(t, envelope.Sign(m, kp))
			data, err := envelope.Encode(m)
			require.NoError(t, err)
			got, err := envelope.DecodeBytes(data)
			require.NoError(t, err)
			change(got)
			err = envelope.VerifySignature(got, kp)
			assert.ErrorIs(t, err, envelope.ErrBadSignature)
		})
	}
}

func TestSignatureRefusals(t *testing.T) {
	kp, other := newKey(t), newKey(t)
	m := signable(t)
	assert.ErrorIs(t, envelope.VerifySignature(m, kp), envelope.ErrUnsigned)
	require.NoError(t, envelope.Sign(m, kp))
	assert.ErrorIs(t, envelope.VerifySignature(m, other), envelope.ErrBadSignature, "another key")

	bad := *m
	s := *m.Signature
	bad.Signature = &s
	s.Alg = "rsa"
	assert.ErrorContains(t, envelope.VerifySignature(&bad, kp), `algorithm "rsa"`)
	s.Alg, s.Sig = envelope.SignatureAlg, "not base64!"
	assert.ErrorIs(t, envelope.VerifySignature(&bad, kp), envelope.ErrBadSignature)

	// A signature of the wrong type is a malformed message.
	_, err := envelope.DecodeBytes([]byte(`{"id":"1","from":"a","to":"b","type":"message","signature":"x"}`))
	assert.ErrorIs(t, err, envelope.ErrMalformed)
}

// A copy the operator handed back (store.RedeliveryCopy: fresh id,
// thread_id the original's or its id, metadata redelivered_from) verifies
// as its original, once or twice redelivered; a copy whose content was
// changed does not.
func TestSignatureOfARedeliveredCopy(t *testing.T) {
	kp := newKey(t)
	redeliver := func(m *envelope.Message) *envelope.Message {
		c := *m
		c.ID = envelope.NewID()
		if c.ThreadID == "" {
			c.ThreadID = m.ID
		}
		c.Metadata = maps.Clone(m.Metadata)
		if _, ok := c.Metadata[envelope.MetaRedeliveredFrom]; !ok {
			c.Metadata[envelope.MetaRedeliveredFrom] = m.ID
		}
		return &c
	}
	for _, thread := range []string{"", "th"} {
		m := signable(t)
		m.ThreadID = thread
		require.NoError(t, envelope.Sign(m, kp))
		once := redeliver(m)
		require.NoError(t, envelope.VerifySignature(once, kp), "thread %q", thread)
		require.NoError(t, envelope.VerifySignature(redeliver(once), kp), "twice, thread %q", thread)
		once.Content.Parts[0].Text = "changed"
		assert.ErrorIs(t, envelope.VerifySignature(once, kp), envelope.ErrBadSignature)
	}
}

// The canonical form is the documented one (docs/format.md): members
// sorted, nulls left out, numbers as doubles, strings minimally escaped,
// no signature or trace context.
func TestSignedBytesCanonicalForm(t *testing.T) {
	m := &envelope.Message{ID: "m1", From: "a", To: "b", Type: envelope.TypeMessage, TTL: 2,
		Timestamp: envelope.NewTime(time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)),
		Content:   envelope.Content{Parts: []envelope.Part{envelope.TextPart("<é>"), envelope.DataPart(map[string]any{"n": 1e21, "x": nil})}},
		Metadata:  map[string]any{"b": 1.50, "a": int64(9007199254740993)}, Traceparent: "00-x", Signature: &envelope.Signature{Alg: "x"}}
	got, err := envelope.SignedBytes(m)
	require.NoError(t, err)
	want := "switchboard-message-v1\n" +
		`{"content":{"parts":[{"text":"<é>","type":"text"},{"data":{"n":1e+21},"type":"data"}]},"from":"a","id":"m1",` +
		`"metadata":{"a":9007199254740992,"b":1.5},"timestamp":"2026-04-26T10:00:00.000000+00:00","to":"b","trace":[],"ttl":2,"type":"message"}`
	assert.Equal(t, want, string(got))

	// A null deadline or reply_by (a zero time) is the same as none.
	d := envelope.Time{}
	withNull := *m
	withNull.Type, withNull.Task = envelope.TypeTask, &envelope.Task{ID: "t", Deadline: &d}
	without := withNull
	without.Task = &envelope.Task{ID: "t"}
	a, err := envelope.SignedBytes(&withNull)
	require.NoError(t, err)
	b, err := envelope.SignedBytes(&without)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(a))
}

func TestCardSignature(t *testing.T) {
	op, err := nkeys.CreateOperator()
	require.NoError(t, err)
	agent := newKey(t)
	pub, _ := agent.PublicKey()
	card := envelope.Card{AgentID: "coder", PublicKey: pub}
	require.NoError(t, envelope.SignCard(&card, op))
	require.NoError(t, envelope.VerifyCardSignature("coder", pub, card.KeySignature, op))
	assert.ErrorIs(t, envelope.VerifyCardSignature("lead", pub, card.KeySignature, op), envelope.ErrBadSignature)
	other, _ := newKey(t).PublicKey()
	assert.ErrorIs(t, envelope.VerifyCardSignature("coder", other, card.KeySignature, op), envelope.ErrBadSignature)
	assert.ErrorIs(t, envelope.VerifyCardSignature("coder", pub, "junk", op), envelope.ErrBadSignature)
	assert.Error(t, envelope.SignCard(&envelope.Card{AgentID: "x"}, op), "no key to vouch for")

	// A message signature is never a card signature, nor the reverse.
	m := &envelope.Message{ID: "1", From: "coder", To: "b", Type: envelope.TypeMessage}
	require.NoError(t, envelope.Sign(m, op))
	assert.False(t, bytes.HasPrefix(envelope.CardStatement("coder", pub), []byte("switchboard-message")))
	assert.True(t, errors.Is(envelope.VerifyCardSignature("coder", pub, m.Signature.Sig, op), envelope.ErrBadSignature))
}
