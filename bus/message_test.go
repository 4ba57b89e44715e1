package bus_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/bus"
)

func TestInboundMessageSessionKey(t *testing.T) {
	tests := []struct {
		name string
		msg  bus.InboundMessage
		want string
	}{
		{
			name: "channel and chat id",
			msg:  bus.InboundMessage{Channel: "feishu", ChatID: "oc_123", SenderID: "ou_9"},
			want: "feishu:oc_123",
		},
		{
			name: "override wins over channel and chat id",
			msg:  bus.InboundMessage{Channel: "mailbox", ChatID: "coder", SessionKeyOverride: "feishu:oc_123"},
			want: "feishu:oc_123",
		},
		{
			name: "override alone",
			msg:  bus.InboundMessage{SessionKeyOverride: "custom"},
			want: "custom",
		},
		{
			name: "chat id containing a colon is kept whole",
			msg:  bus.InboundMessage{Channel: "mailbox", ChatID: "a:b"},
			want: "mailbox:a:b",
		},
		{
			name: "empty message",
			msg:  bus.InboundMessage{},
			want: ":",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.msg.SessionKey())
		})
	}
}
