package agentloop_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/agentloop"
)

func TestCheckEndpoint(t *testing.T) {
	t.Parallel()
	assert.NoError(t, agentloop.CheckEndpoint("x", time.Second, 2, "https://api.example.test/v1", "https://e"))
	err := agentloop.CheckEndpoint("x", -time.Second, -1, "ftp://nowhere", "https://e")
	assert.ErrorContains(t, err, "x provider: timeout: want 0 or more, got -1s")
	assert.ErrorContains(t, err, "x provider: maxRetries: want 0 or more, got -1")
	assert.ErrorContains(t, err, `x provider: apiBase "ftp://nowhere": want an http or https URL such as https://e`)
}
