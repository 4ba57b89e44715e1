package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDeadReasonSaysEachThingOnce(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "sender refused", deadReason("sender refused", ""))
	assert.Equal(t, "oversized: 3000000 bytes", deadReason("oversized: 3000000 bytes", "oversized: 3000000 bytes"),
		"set aside as unreadable: one reason, not twice")
	assert.Equal(t, "malformed message: empty file", deadReason("", "malformed message: empty file"),
		"no reason file: what is wrong with the message")
	assert.Equal(t, "handed out 5 times (malformed message: bad JSON)", deadReason("handed out 5 times", "malformed message: bad JSON"))
}
