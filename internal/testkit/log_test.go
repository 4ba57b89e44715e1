package testkit

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLogWaitCountFollowsProgress(t *testing.T) {
	l := NewLog[int]()
	go func() {
		for i := range 6 {
			l.Add(i)
		}
	}()
	l.WaitCount(t, "even values", 3, func(v int) bool { return v%2 == 0 })
	l.WaitCount(t, "values", 6, nil)
	assert.Equal(t, 6, l.Count(nil))
	assert.Equal(t, 2, l.Take(t, "a value above 1", func(v int) bool { return v > 1 }))
	assert.Equal(t, 3, l.Take(t, "another", func(v int) bool { return v > 1 }))
	assert.Equal(t, 2, l.WaitFor(t, "a value above 1", func(v int) bool { return v > 1 }), "WaitFor takes nothing")
}
