package storetest

import (
	"testing"

	"github.com/switchboard-dev/switchboard/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func (s *suite) runState(t *testing.T) {
	w := s.world(t)
	be := w.open(t, nil)
	ctx := testkit.Ctx(t)

	got, err := be.LoadState(ctx, "bob", "sent-tasks")
	require.NoError(t, err, "no record is not an error")
	assert.Nil(t, got)

	require.NoError(t, be.SaveState(ctx, "bob", "sent-tasks", []byte(`[1]`)))
	require.NoError(t, be.SaveState(ctx, "bob", "sent-tasks", []byte(`[1,2]`)))
	require.NoError(t, be.SaveState(ctx, "carol", "sent-tasks", []byte(`[3]`)))
	other := w.open(t, nil)
	got, err = other.LoadState(ctx, "bob", "sent-tasks")
	require.NoError(t, err)
	assert.Equal(t, `[1,2]`, string(got), "the last record, read by another process")
	got, err = other.LoadState(ctx, "carol", "sent-tasks")
	require.NoError(t, err)
	assert.Equal(t, `[3]`, string(got), "records are per agent")
	got, err = other.LoadState(ctx, "bob", "other-key")
	require.NoError(t, err)
	assert.Nil(t, got, "records are per key")

	for _, key := range []string{"", "../x", "a/b", "A B"} {
		assert.Error(t, be.SaveState(ctx, "bob", key, []byte("x")), "key %q", key)
		_, err := be.LoadState(ctx, "bob", key)
		assert.Error(t, err, "key %q", key)
	}
	for _, agent := range []string{"", "../x"} {
		assert.Error(t, be.SaveState(ctx, agent, "k", []byte("x")), "agent %q", agent)
	}
}
