package keylock

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSecondHolderWaitsForTheFirst: a key held is taken by another only
// once released; other keys are free meanwhile; a wait ends with its ctx.
func TestSecondHolderWaitsForTheFirst(t *testing.T) {
	t.Parallel()
	var k Set
	unlock, err := k.Lock(t.Context(), "m1")
	require.NoError(t, err)

	other, err := k.Lock(t.Context(), "m2")
	require.NoError(t, err, "another key is free")
	other()

	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = k.Lock(canceled, "m1")
	assert.ErrorIs(t, err, context.Canceled, "a wait ends with its context")

	got := make(chan func(), 1)
	go func() {
		u, err := k.Lock(t.Context(), "m1")
		if err == nil {
			got <- u
		}
	}()
	select {
	case <-got:
		t.Fatal("the key was taken while held")
	default:
	}
	unlock()
	second := <-got
	second()
	again, err := k.Lock(t.Context(), "m1")
	require.NoError(t, err, "released twice over, the key is free")
	again()
}
