package natsstore_test

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

const (
	testParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	testState  = "vendor=1"
)

// TestTraceContextInHeaders: a message that carries a trace context is
// published with the traceparent and tracestate headers, and hands it
// out again; one without a context gets no headers.
func TestTraceContextInHeaders(t *testing.T) {
	ts := sharedServer(t)
	be := ts.open(t, nil)
	traced := storetest.NewMessage("alice", "bob", "traced")
	traced.Traceparent, traced.Tracestate = testParent, testState
	require.NoError(t, be.Deliver(testkit.Ctx(t), traced))
	plain := storetest.NewMessage("carol", "bob", "plain")
	require.NoError(t, be.Deliver(testkit.Ctx(t), plain))

	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	stream, err := js.Stream(testkit.Ctx(t), ts.ns.Stream)
	require.NoError(t, err)
	raw, err := stream.GetLastMsgForSubject(testkit.Ctx(t), ts.subject("bob.inbox.alice"))
	require.NoError(t, err)
	assert.Equal(t, testParent, raw.Header.Get(natsstore.HeaderTraceparent))
	assert.Equal(t, testState, raw.Header.Get(natsstore.HeaderTracestate))
	raw, err = stream.GetLastMsgForSubject(testkit.Ctx(t), ts.subject("bob.inbox.carol"))
	require.NoError(t, err)
	assert.Empty(t, raw.Header.Get(natsstore.HeaderTraceparent))

	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	_, d := nextID(t, in, true)
	assert.Equal(t, testParent, d.Message.Traceparent)
	assert.Equal(t, testState, d.Message.Tracestate)
	_, d = nextID(t, in, true)
	assert.Empty(t, d.Message.Traceparent)
}

// TestTraceContextFromHeadersOnly: a message published by another tool
// with the trace context in its headers only is handed out with that
// context; the message's own field wins over the headers.
func TestTraceContextFromHeadersOnly(t *testing.T) {
	ts := sharedServer(t)
	be := ts.open(t, nil)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	publish := func(m *envelope.Message) {
		data, err := envelope.Encode(m)
		require.NoError(t, err)
		nm := nats.NewMsg(ts.subject("dave.inbox." + m.From))
		nm.Data = data
		nm.Header.Set(natsstore.HeaderTraceparent, testParent)
		nm.Header.Set(natsstore.HeaderTracestate, testState)
		_, err = js.PublishMsg(testkit.Ctx(t), nm)
		require.NoError(t, err)
	}
	headersOnly := storetest.NewMessage("alice", "dave", "headers only")
	publish(headersOnly)
	own := storetest.NewMessage("alice", "dave", "own field")
	own.Traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	publish(own)

	in, err := be.OpenInbox(testkit.Ctx(t), "dave")
	require.NoError(t, err)
	defer in.Close()
	_, d := nextID(t, in, true)
	assert.Equal(t, testParent, d.Message.Traceparent)
	assert.Equal(t, testState, d.Message.Tracestate)
	_, d = nextID(t, in, true)
	assert.Equal(t, own.Traceparent, d.Message.Traceparent)
	assert.Empty(t, d.Message.Tracestate, "the headers of another context are not mixed in")
}
