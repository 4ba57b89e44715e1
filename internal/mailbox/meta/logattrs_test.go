package meta

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func TestLogAttrs(t *testing.T) {
	t.Parallel()
	const (
		trace = "4bf92f3577b34da6a3ce929d0e0e4736"
		tp    = "00-" + trace + "-00f067aa0ba902b7-01"
	)
	tc := map[string]string{"traceparent": tp, "tracestate": "k=v"}
	md := With(nil, Meta{MessageID: "m-1", ThreadID: "t-1"})
	require.Equal(t, []any{"id", "m-2", "thread", "t-1", "trace", trace}, LogAttrs("m-2", md, tc))
	require.Equal(t, []any{"id", "m-2", "thread", "t-1"}, LogAttrs("m-2", md, nil), "no trace context, no trace")
	require.Equal(t, []any{"id", "m-1", "thread", "t-1"}, LogAttrs("", md, nil), "the mailbox id when the bus has none")
	require.Equal(t, []any{"id", "ev-9", "trace", trace}, LogAttrs("ev-9", map[string]any{"chat": "x"}, tc), "no thread outside the mailbox")
	require.Equal(t, []any{"id", "ev-9"}, LogAttrs("ev-9", nil, map[string]string{"traceparent": "junk"}), "a malformed traceparent is left out")
	require.Empty(t, LogAttrs("", nil, nil))
	m := &envelope.Message{ID: "m-3", ThreadID: "t-3", From: "alice"}
	require.Equal(t, []any{"id", "m-3", "thread", "t-3", "from", "alice"}, MessageLogAttrs(m))
	m.Traceparent = tp
	require.Equal(t, []any{"id", "m-3", "thread", "t-3", "trace", trace, "from", "alice"}, MessageLogAttrs(m))
}
