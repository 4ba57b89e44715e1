package mailbox

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

func TestRecentMessagesForgetsOldestFirst(t *testing.T) {
	r := newRecentMessages(3)
	for i := range 5 {
		r.add(meta.Meta{MessageID: fmt.Sprint(i), From: "a"})
	}
	for i := range 5 {
		_, ok := r.get(fmt.Sprint(i))
		assert.Equal(t, i >= 2, ok, "message %d", i)
	}
	r.add(meta.Meta{MessageID: "3", From: "b"}) // seen again: updated, nothing forgotten
	m, ok := r.get("3")
	assert.True(t, ok)
	assert.Equal(t, "b", m.From)
	_, ok = r.get("2")
	assert.True(t, ok)
	r.add(meta.Meta{MessageID: "5"})
	_, ok = r.get("2")
	assert.False(t, ok, "the oldest goes first")
	_, ok = r.get("3")
	assert.True(t, ok)
}
