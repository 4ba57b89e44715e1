package recentids_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/internal/recentids"
)

// The set grows to its size, then each new id pushes out the oldest; an
// id added again changes nothing; All gives the ids oldest first.
func TestSetForgetsOldestFirst(t *testing.T) {
	t.Parallel()
	s := recentids.New(3)
	assert.Equal(t, 0, s.Len())
	assert.Empty(t, slices.Collect(s.All()))
	for _, id := range []string{"a", "b", "c"} {
		assert.True(t, s.Add(id), id)
	}
	assert.Equal(t, []string{"a", "b", "c"}, slices.Collect(s.All()))
	assert.True(t, s.Add("d"))
	assert.False(t, s.Add("b"), "held already: not added again, nothing forgotten")
	assert.True(t, s.Add("e"))
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		assert.Equal(t, id >= "c", s.Has(id), "id %s", id)
	}
	assert.Equal(t, []string{"c", "d", "e"}, slices.Collect(s.All()))
	for i := range 30 { // many times round
		s.Add(fmt.Sprint(i))
	}
	assert.Equal(t, 3, s.Len())
	assert.Equal(t, []string{"27", "28", "29"}, slices.Collect(s.All()))
	for i := range 30 {
		assert.Equal(t, i >= 27, s.Has(fmt.Sprint(i)), "id %d", i)
	}
	for id := range s.All() { // stopping early
		assert.Equal(t, "27", id)
		break
	}
}

// A set of size 0 or less holds the last id.
func TestSetOfNoSizeHoldsOne(t *testing.T) {
	t.Parallel()
	s := recentids.New(0)
	s.Add("a")
	s.Add("b")
	assert.False(t, s.Has("a"))
	assert.True(t, s.Has("b"))
}

// A forgotten id is new again, and its slot comes round in its turn: the
// ids added after it are kept as long as before.
func TestSetForgets(t *testing.T) {
	t.Parallel()
	s := recentids.New(3)
	for _, id := range []string{"a", "b", "c"} {
		s.Add(id)
	}
	s.Forget("b")
	s.Forget("x") // never held
	assert.False(t, s.Has("b"))
	assert.Equal(t, 2, s.Len())
	assert.Equal(t, []string{"a", "c"}, slices.Collect(s.All()))
	assert.True(t, s.Add("b"), "new again")
	assert.Equal(t, []string{"c", "b"}, slices.Collect(s.All()), "b's new slot pushed out the oldest, a")
	assert.True(t, s.Add("d")) // the empty slot of the first b comes round
	assert.Equal(t, []string{"c", "b", "d"}, slices.Collect(s.All()))
	assert.True(t, s.Add("e"))
	assert.Equal(t, []string{"b", "d", "e"}, slices.Collect(s.All()))
	assert.False(t, s.Add(""), "no id")
	assert.False(t, s.Has(""))
}
