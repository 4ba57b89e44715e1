package channels_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels"
)

func TestTemporary(t *testing.T) {
	base := errors.New("connection reset")
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{name: "nil", err: nil, want: false},
		{name: "plain", err: base, want: false},
		{name: "marked", err: channels.Temporary(base), want: true},
		{name: "marked then wrapped", err: fmt.Errorf("send: %w", channels.Temporary(base)), want: true},
		{name: "sentinel wrapped", err: fmt.Errorf("rate limited: %w", channels.ErrTemporary), want: true},
		{name: "joined with a temporary one", err: errors.Join(base, channels.Temporary(errors.New("x"))), want: true},
		{name: "other sentinel", err: channels.ErrNotRunning, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, channels.IsTemporary(tt.err))
		})
	}
}

func TestTemporaryKeepsTheError(t *testing.T) {
	assert.NoError(t, channels.Temporary(nil))

	base := errors.New("connection reset")
	err := channels.Temporary(base)
	assert.Equal(t, "connection reset", err.Error(), "the text is unchanged")
	assert.ErrorIs(t, err, base)
	assert.ErrorIs(t, err, channels.ErrTemporary)
}

func TestDispatchError(t *testing.T) {
	cause := channels.Temporary(errors.New("rate limited"))
	var err error = &channels.DispatchError{Channel: "feishu", ChatID: "oc_1", Attempts: 3, Err: cause}

	assert.Equal(t, `deliver to channel "feishu" chat "oc_1" failed after 3 attempt(s): rate limited`, err.Error())
	assert.ErrorIs(t, err, channels.ErrTemporary)
	assert.True(t, channels.IsTemporary(err))

	var de *channels.DispatchError
	require.ErrorAs(t, fmt.Errorf("wrapped: %w", err), &de)
	assert.Equal(t, 3, de.Attempts)
	assert.Equal(t, cause, errors.Unwrap(err), "Unwrap returns the last send error")
}
