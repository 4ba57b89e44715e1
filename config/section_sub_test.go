package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSectionSubAndWithout(t *testing.T) {
	t.Parallel()
	s := Section{Path: "channels.mailbox", Raw: map[string]any{"agentId": "a", "nats": map[string]any{"url": "nats://x"}, "bad": "str"}}
	sub, ok := s.Sub("nats")
	assert.True(t, ok)
	assert.Equal(t, "channels.mailbox.nats", sub.Path)
	assert.Equal(t, "nats://x", sub.Raw["url"])
	none, ok := s.Sub("missing")
	assert.True(t, ok)
	assert.Nil(t, none.Raw)
	_, ok = s.Sub("bad")
	assert.False(t, ok)
	rest := s.Without("nats", "bad")
	assert.Equal(t, map[string]any{"agentId": "a"}, rest.Raw)
	assert.Len(t, s.Raw, 3, "Without leaves the original alone")
}
