package fsstore

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodeWithEncoder is how the registry was written before encodeRegistry
// wrote it by hand: the output must not change by a byte.
func encodeWithEncoder(entries map[string]json.RawMessage) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(entries); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func TestEncodeRegistryAsTheEncoder(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		entries map[string]json.RawMessage
	}{
		{"empty", map[string]json.RawMessage{}},
		{"compact cards", map[string]json.RawMessage{
			"b": json.RawMessage(`{"agent_id":"b","capabilities":["x","y"],"n":{"deep":[1,{"a":null}]},"e":[],"o":{}}`),
			"a": json.RawMessage(`{"agent_id":"a","description":"<go> & co \u2028 é"}`),
		}},
		{"indented as read", map[string]json.RawMessage{
			"coder": json.RawMessage("{\n    \"agent_id\": \"coder\",\n    \"x\": [\n      1,\n      2\n    ]\n  }"),
		}},
		{"odd keys and values", map[string]json.RawMessage{
			"é":       json.RawMessage(`1`),
			"q\"uote": json.RawMessage(`"s"`),
			"<tag>":   json.RawMessage(` [ 1 , 2 ] `),
			"ctl\x01": json.RawMessage(`null`),
			"\u2028":  json.RawMessage(`true`),
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := encodeWithEncoder(tt.entries)
			require.NoError(t, err)
			got, err := encodeRegistry(tt.entries)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
	_, err := encodeRegistry(map[string]json.RawMessage{"bad": json.RawMessage(`{"a":`)})
	assert.Error(t, err, "an entry that is not JSON")
}
