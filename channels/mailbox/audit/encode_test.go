package audit

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// The hand-written encoder writes exactly what encoding/json's Encoder
// writes for an Entry: empty fields, every field, text that needs
// escaping, odd times.
func TestAppendEntryMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 4, 5, 6, 7, 891000, time.FixedZone("x", 3600+1800))
	cases := []Entry{
		{},
		{Event: store.Event{Time: at, Kind: store.EventSent, Agent: "coder"}},
		{Event: store.Event{Time: at.UTC(), Kind: store.EventProcessed, Agent: "a", MessageID: "m1",
			From: "b", Ref: "1_b_x.msg.json", Reason: "why", ThreadID: "t", TaskID: "task"}, PID: 42, Host: "h"},
		{Event: store.Event{Kind: "k", Agent: "<&>\"\\\n\t\x01\u2028\u2029é\xff", Reason: "日本"}, PID: -1},
		{Event: store.Event{Time: time.Unix(0, 0)}},
	}
	for _, e := range cases {
		var want bytes.Buffer
		assert.NoError(t, json.NewEncoder(&want).Encode(e))
		assert.Equal(t, want.String(), string(appendEntry(nil, e)))
	}
}
