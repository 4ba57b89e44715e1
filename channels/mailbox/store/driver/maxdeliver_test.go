package driver

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMaxDeliverReason(t *testing.T) {
	t.Parallel()
	r := MaxDeliverReason(5, 5)
	assert.Equal(t, "handed out 5 times without an acknowledgement (maxDeliver 5)", r, "the wording the docs show")
	assert.True(t, IsMaxDeliver(r))
	for _, other := range []string{"", "malformed JSON", "rate limit: sender x over 1/minute", "handed out twice"} {
		assert.False(t, IsMaxDeliver(other), other)
	}
}
