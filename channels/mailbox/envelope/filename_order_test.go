package envelope_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// TestFileNameKeepsSendOrderWithinAMillisecond: two messages one sender
// stamps in the same millisecond sort in the order their ids were made,
// even when the second id was made in the next millisecond (its sub-
// millisecond part then starts again from zero).
func TestFileNameKeepsSendOrderWithinAMillisecond(t *testing.T) {
	ms := time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC).UnixMilli()
	v7 := func(ms int64, frac uint16) string { // a UUIDv7 made at ms + frac/4096
		hex := fmt.Sprintf("%012x7%03x8000000000000001", ms, frac)
		return hex[:8] + "-" + hex[8:12] + "-" + hex[12:16] + "-" + hex[16:20] + "-" + hex[20:]
	}
	first, second := v7(ms, 0xfff), v7(ms+1, 0x001)
	require.True(t, envelope.IsOwnID(first) && envelope.IsOwnID(second))
	ts := envelope.NewTime(time.UnixMilli(ms))
	a := envelope.FileName(&envelope.Message{ID: first, From: "coder", Timestamp: ts})
	b := envelope.FileName(&envelope.Message{ID: second, From: "coder", Timestamp: ts})
	assert.Less(t, a, b)
}
