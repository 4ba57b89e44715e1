package natsstore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestIDRingForgetsOldestFirst: the ring grows to its size, then each new
// id pushes out the oldest; an id added again changes nothing.
func TestIDRingForgetsOldestFirst(t *testing.T) {
	t.Parallel()
	r := newIDRing(3)
	for _, id := range []string{"a", "b", "c"} {
		r.add(id)
	}
	assert.Len(t, r.ring, 3)
	r.add("d")
	r.add("b") // held already: not added again, nothing forgotten
	r.add("e")
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		assert.Equal(t, id >= "c", r.has(id), "id %s", id)
	}
	for i := range 30 { // many times round
		r.add(fmt.Sprint(i))
	}
	assert.Len(t, r.set, 3)
	assert.Len(t, r.ring, 3)
	for i := range 30 {
		assert.Equal(t, i >= 27, r.has(fmt.Sprint(i)), "id %d", i)
	}
}
