package envelope_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// EncodeCompact writes what Encode writes, without the indentation, and
// it decodes back to the same message.
func TestEncodeCompactIsEncodeOnOneLine(t *testing.T) {
	for _, name := range []string{"nanobot_message.json", "nanobot_message_nulls.json",
		"switchboard_message.json", "switchboard_message_minimal.json"} {
		t.Run(name, func(t *testing.T) {
			m, err := envelope.DecodeBytes(readTestdata(t, name))
			require.NoError(t, err)
			indented, err := envelope.Encode(m)
			require.NoError(t, err)
			compact, err := envelope.EncodeCompact(m)
			require.NoError(t, err)
			var want bytes.Buffer
			require.NoError(t, json.Compact(&want, indented))
			assert.Equal(t, want.String(), string(compact))
			assert.NotContains(t, string(compact), "\n")
			back, err := envelope.DecodeBytes(compact)
			require.NoError(t, err)
			assert.Equal(t, m, back)
		})
	}
}
