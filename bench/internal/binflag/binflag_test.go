package binflag

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetKeepsOrderAndRefusesHalfAPair: NAME=PATH pairs come in order;
// one without its name, path or "=" is an error naming it.
func TestSetKeepsOrderAndRefusesHalfAPair(t *testing.T) {
	var b Binaries
	require.NoError(t, b.Set("before=/tmp/a"))
	require.NoError(t, b.Set("after=/tmp/b=c"))
	assert.Equal(t, Binaries{{"before", "/tmp/a"}, {"after", "/tmp/b=c"}}, b)
	for _, bad := range []string{"before", "=/tmp/a", "before="} {
		assert.EqualError(t, b.Set(bad), `"`+bad+`": want NAME=PATH`)
	}
}
