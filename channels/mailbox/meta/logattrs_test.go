package meta

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func TestLogAttrs(t *testing.T) {
	t.Parallel()
	md := With(nil, Meta{MessageID: "m-1", ThreadID: "t-1"})
	require.Equal(t, []any{"id", "m-2", "thread", "t-1"}, LogAttrs("m-2", md))
	require.Equal(t, []any{"id", "m-1", "thread", "t-1"}, LogAttrs("", md), "the mailbox id when the bus has none")
	require.Equal(t, []any{"id", "ev-9"}, LogAttrs("ev-9", map[string]any{"chat": "x"}), "no thread outside the mailbox")
	require.Empty(t, LogAttrs("", nil))
	m := &envelope.Message{ID: "m-3", ThreadID: "t-3", From: "alice"}
	require.Equal(t, []any{"id", "m-3", "thread", "t-3", "from", "alice"}, MessageLogAttrs(m))
}
