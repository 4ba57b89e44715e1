package driver_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
)

func TestEncodeForDeliveryValid(t *testing.T) {
	for name, encode := range map[string]func(*envelope.Message) ([]byte, error){
		"indented": envelope.Encode, "compact": envelope.EncodeCompact,
	} {
		t.Run(name, func(t *testing.T) {
			msg := storetest.NewMessage("alice", "bob", "hello")
			data, err := driver.EncodeForDelivery(msg, 1<<20, encode)
			require.NoError(t, err)
			want, err := encode(msg)
			require.NoError(t, err)
			assert.Equal(t, want, data, "the bytes of the encoder given")
			got, err := envelope.DecodeBytes(data)
			require.NoError(t, err)
			assert.Equal(t, msg.ID, got.ID)
			assert.Equal(t, "hello", got.Text())

			exact, err := driver.EncodeForDelivery(msg, int64(len(data)), encode)
			require.NoError(t, err, "a message exactly at the limit is accepted")
			assert.Equal(t, data, exact)
			_, err = driver.EncodeForDelivery(msg, int64(len(data))-1, encode)
			assert.ErrorIs(t, err, envelope.ErrTooLarge, "the limit applies to the bytes stored")
		})
	}
}

func TestEncodeForDeliveryRefuses(t *testing.T) {
	tests := []struct {
		name    string
		change  func(m *envelope.Message)
		max     int64
		wantErr error
		wantIn  string
	}{
		{"bad sender", func(m *envelope.Message) { m.From = "../etc" }, 1 << 20, envelope.ErrBadAgentID, "from:"},
		{"bad recipient", func(m *envelope.Message) { m.To = "" }, 1 << 20, envelope.ErrBadAgentID, "to:"},
		{"unknown type", func(m *envelope.Message) { m.Type = "shout" }, 1 << 20, envelope.ErrMalformed, "shout"},
		{"no timestamp", func(m *envelope.Message) { m.Timestamp = envelope.Time{} }, 1 << 20, envelope.ErrMalformed, "missing timestamp"},
		{"over the limit", func(m *envelope.Message) {}, 64, envelope.ErrTooLarge, "over the limit of 64 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := storetest.NewMessage("alice", "bob", "hello")
			tt.change(msg)
			data, err := driver.EncodeForDelivery(msg, tt.max, envelope.Encode)
			require.Error(t, err)
			assert.Nil(t, data)
			assert.True(t, errors.Is(err, tt.wantErr), "want %v, got %v", tt.wantErr, err)
			assert.Contains(t, err.Error(), tt.wantIn)
			assert.Contains(t, err.Error(), msg.ID, "the error names the message")
		})
	}
	_, err := driver.EncodeForDelivery(nil, 1<<20, envelope.Encode)
	assert.EqualError(t, err, "deliver: nil message")
}
