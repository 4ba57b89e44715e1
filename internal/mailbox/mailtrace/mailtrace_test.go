package mailtrace_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/mailtrace"
	"github.com/switchboard-dev/switchboard/tracing"
)

const caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

type deliverer struct {
	err error
	got *envelope.Message
}

func (d *deliverer) Deliver(_ context.Context, msg *envelope.Message) error {
	d.got = msg
	return d.err
}

func message() *envelope.Message {
	return &envelope.Message{ID: "m1", From: "lead", To: "coder", Type: envelope.TypeTask, ThreadID: "th1",
		Task: &envelope.Task{ID: "t1", State: envelope.StatePending}}
}

// TestSpans checks the spans of a message sent and received: one with
// tracing off (the caller's context still travels in the message), then
// with a recording TracerProvider (global: one test in this package).
func TestSpans(t *testing.T) {
	// Tracing off: the caller's trace context goes on through the message.
	msg := message()
	d := &deliverer{}
	require.NoError(t, mailtrace.Deliver(tracing.WithParent(context.Background(), caller, ""), nil, d, msg))
	assert.Equal(t, caller, msg.Traceparent, "no provider: the caller's context as it came")

	rec := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	clk := clock.NewManual(time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC))
	t0 := clk.Now()

	msg = message()
	d = &deliverer{err: errors.New("disk full")}
	err := mailtrace.Deliver(tracing.WithParent(context.Background(), caller, ""), clk, d, msg)
	require.Error(t, err)
	sent := rec.Ended()[0]
	assert.Equal(t, "send coder", sent.Name())
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", sent.SpanContext().TraceID().String(), "a child of the caller")
	assert.Equal(t, "00f067aa0ba902b7", sent.Parent().SpanID().String())
	assert.Equal(t, t0, sent.StartTime(), "on the injected clock")
	assert.Equal(t, t0, sent.EndTime())
	assert.Equal(t, codes.Error, sent.Status().Code)
	assert.Contains(t, sent.Attributes(), attribute.String("switchboard.mailbox.task_id", "t1"))
	assert.Contains(t, sent.Attributes(), attribute.String("messaging.message.id", "m1"))
	tp, _ := tracing.Parent(trace(sent))
	assert.Equal(t, tp, msg.Traceparent, "the message carries the send span's context")
	assert.Same(t, msg, d.got)

	_, end := mailtrace.Receive(context.Background(), clk, "coder", msg, true)
	clk.Add(3 * time.Second)
	end(nil)
	got := rec.Ended()[1]
	assert.Equal(t, "receive coder", got.Name())
	assert.Equal(t, sent.SpanContext().SpanID(), got.Parent().SpanID(), "a child of the send span")
	assert.True(t, got.Parent().IsRemote())
	assert.Equal(t, t0, got.StartTime())
	assert.Equal(t, t0.Add(3*time.Second), got.EndTime())
	assert.Contains(t, got.Attributes(), attribute.Bool("switchboard.redelivered", true))

	nanobots := &envelope.Message{ID: "m2", From: "nb", To: "coder", Type: envelope.TypeMessage}
	_, end = mailtrace.Receive(context.Background(), nil, "coder", nanobots, false)
	end(nil)
	assert.False(t, rec.Ended()[2].Parent().IsValid(), "a message without trace context starts a trace")
}

// trace is a context holding the span context of s.
func trace(s sdktrace.ReadOnlySpan) context.Context {
	return oteltrace.ContextWithSpanContext(context.Background(), s.SpanContext())
}
