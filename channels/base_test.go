package channels_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
)

func TestIsAllowed(t *testing.T) {
	tests := []struct {
		name      string
		allowFrom []string
		sender    string
		want      bool
	}{
		{name: "star allows anyone", allowFrom: []string{"*"}, sender: "ou_123", want: true},
		{name: "star allows the empty sender", allowFrom: []string{"*"}, sender: "", want: true},
		{name: "star among others allows anyone", allowFrom: []string{"alice", "*", "bob"}, sender: "mallory", want: true},
		{name: "nil list denies all", allowFrom: nil, sender: "alice", want: false},
		{name: "empty list denies all", allowFrom: []string{}, sender: "alice", want: false},
		{name: "empty list denies the empty sender", allowFrom: []string{}, sender: "", want: false},
		{name: "listed sender", allowFrom: []string{"alice", "bob"}, sender: "bob", want: true},
		{name: "unlisted sender", allowFrom: []string{"alice", "bob"}, sender: "carol", want: false},
		{name: "match is case-sensitive", allowFrom: []string{"alice"}, sender: "Alice", want: false},
		{name: "no prefix match", allowFrom: []string{"alice"}, sender: "alice2", want: false},
		{name: "no substring match", allowFrom: []string{"alice2"}, sender: "alice", want: false},
		{name: "no trimming", allowFrom: []string{"alice"}, sender: " alice", want: false},
		{name: "star is literal only as a whole entry", allowFrom: []string{"a*"}, sender: "alice", want: false},
		{name: "sender named star needs star or itself", allowFrom: []string{"alice"}, sender: "*", want: false},
		{name: "empty entry does not allow others", allowFrom: []string{""}, sender: "alice", want: false},
		{name: "empty entry allows the empty sender", allowFrom: []string{""}, sender: "", want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, channels.IsAllowed(tt.allowFrom, tt.sender))
			b := channels.NewBase("test", tt.allowFrom, bus.New(1), nil)
			assert.Equal(t, tt.want, b.IsAllowed(tt.sender), "Base.IsAllowed")
		})
	}
}

func TestNewBase(t *testing.T) {
	b := bus.New(1)
	allow := []string{"alice", "bob"}
	base := channels.NewBase("feishu", allow, b, nil)

	assert.Equal(t, "feishu", base.Name())
	assert.Same(t, b, base.Bus())
	require.NotNil(t, base.Logger(), "a nil logger is replaced by a discarding one")
	assert.Equal(t, []string{"alice", "bob"}, base.AllowFrom())

	// NewBase copies the list, and AllowFrom returns a copy.
	allow[0] = "mallory"
	got := base.AllowFrom()
	got[1] = "mallory"
	assert.Equal(t, []string{"alice", "bob"}, base.AllowFrom())
	assert.False(t, base.IsAllowed("mallory"))
}

func TestHandleMessage(t *testing.T) {
	ts := time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)
	tests := []struct {
		name      string
		allowFrom []string
		msg       bus.InboundMessage
		wantErr   error              // errors.Is target; nil for success
		want      bus.InboundMessage // published, when wantErr is nil
	}{
		{
			name:      "allowed sender, channel filled in",
			allowFrom: []string{"alice"},
			msg:       bus.InboundMessage{SenderID: "alice", ChatID: "c1", Content: "hi", Timestamp: ts},
			want:      bus.InboundMessage{Channel: "feishu", SenderID: "alice", ChatID: "c1", Content: "hi", Timestamp: ts},
		},
		{
			name:      "star allows, channel set by caller kept",
			allowFrom: []string{"*"},
			msg:       bus.InboundMessage{Channel: "other", SenderID: "bob", ChatID: "c2", SessionKeyOverride: "feishu:c9"},
			want:      bus.InboundMessage{Channel: "other", SenderID: "bob", ChatID: "c2", SessionKeyOverride: "feishu:c9"},
		},
		{
			name:      "unlisted sender refused",
			allowFrom: []string{"alice"},
			msg:       bus.InboundMessage{SenderID: "mallory", ChatID: "c1"},
			wantErr:   channels.ErrNotAllowed,
		},
		{
			name:      "empty allowFrom refuses everyone",
			allowFrom: nil,
			msg:       bus.InboundMessage{SenderID: "alice", ChatID: "c1"},
			wantErr:   channels.ErrNotAllowed,
		},
		{
			name:      "case matters",
			allowFrom: []string{"alice"},
			msg:       bus.InboundMessage{SenderID: "ALICE", ChatID: "c1"},
			wantErr:   channels.ErrNotAllowed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := bus.New(4)
			base := channels.NewBase("feishu", tt.allowFrom, b, nil) // nil logger must be fine
			err := base.HandleMessage(t.Context(), tt.msg)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				assert.Contains(t, err.Error(), `"feishu"`, "the error names the channel")
				assert.Contains(t, err.Error(), `"`+tt.msg.SenderID+`"`, "the error names the sender")
				assert.Equal(t, 0, b.InboundDepth(), "a refused message is not published")
				return
			}
			require.NoError(t, err)
			got, err := b.ConsumeInbound(t.Context())
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A channel's own allow rule replaces the exact match, for HandleMessage
// too.
func TestUseAllowRule(t *testing.T) {
	b := bus.New(2)
	base := channels.NewBase("chat", []string{"alice"}, b, nil)
	base.UseAllowRule(func(allowFrom []string, sender string) bool {
		name, _, _ := strings.Cut(sender, "|")
		return channels.IsAllowed(allowFrom, name)
	})
	assert.True(t, base.IsAllowed("alice|42"))
	assert.False(t, base.IsAllowed("bob|42"))
	require.NoError(t, base.HandleMessage(t.Context(), bus.InboundMessage{SenderID: "alice|42"}))
	require.ErrorIs(t, base.HandleMessage(t.Context(), bus.InboundMessage{SenderID: "bob|42"}), channels.ErrNotAllowed)
	assert.Equal(t, 1, b.InboundDepth())
}

func TestHandleMessageLogsRefusal(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, nil))
	base := channels.NewBase("feishu", []string{"alice"}, bus.New(1), logger)

	err := base.HandleMessage(t.Context(), bus.InboundMessage{SenderID: "mallory"})
	require.ErrorIs(t, err, channels.ErrNotAllowed)
	assert.Contains(t, buf.String(), "level=WARN")
	assert.Contains(t, buf.String(), "sender=mallory")
	assert.Contains(t, buf.String(), "channel=feishu")
}

func TestHandleMessageBusErrors(t *testing.T) {
	t.Run("closed bus", func(t *testing.T) {
		b := bus.New(1)
		require.NoError(t, b.Close())
		base := channels.NewBase("feishu", []string{"*"}, b, nil)
		err := base.HandleMessage(t.Context(), bus.InboundMessage{SenderID: "alice"})
		require.ErrorIs(t, err, bus.ErrClosed)
	})
	t.Run("full bus and ended context", func(t *testing.T) {
		b := bus.New(1)
		base := channels.NewBase("feishu", []string{"*"}, b, nil)
		require.NoError(t, base.HandleMessage(t.Context(), bus.InboundMessage{SenderID: "alice"}))
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		err := base.HandleMessage(ctx, bus.InboundMessage{SenderID: "alice"})
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, 1, b.InboundDepth())
	})
}
