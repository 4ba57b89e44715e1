package natsstore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
)

// TestDecodeConfigBoundsDurations: the duration keys refuse values past
// what a time.Duration holds, with an error naming the key.
func TestDecodeConfigBoundsDurations(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"ackWait", "lockTtl", "connectTimeout", "historyMaxAge"} {
		_, err := natsstore.DecodeConfig(map[string]any{key: 1e10})
		require.Error(t, err, key)
		assert.Contains(t, err.Error(), "channels.mailbox.nats."+key+": want a number of seconds from 1 to ", key)
	}
	_, err := natsstore.DecodeConfig(map[string]any{"historyMaxAge": -1})
	assert.NoError(t, err, "-1: no bound")
}
