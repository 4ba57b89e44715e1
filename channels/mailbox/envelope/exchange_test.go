package envelope_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func TestExchangeRoundTripsAndRefusesGarbage(t *testing.T) {
	m := &envelope.Message{}
	m.SetExchange(envelope.Exchange{Bounces: 3, AskedBack: 1})
	assert.Equal(t, envelope.Exchange{Bounces: 3, AskedBack: 1}, m.Exchange())
	m.SetExchange(envelope.Exchange{})
	assert.NotContains(t, m.Metadata, envelope.MetaExchange, "a zero count is not written")

	for _, tt := range []struct {
		name string
		json string
		want envelope.Exchange
	}{
		{"counts", `{"bounces":2,"asked_back":1}`, envelope.Exchange{Bounces: 2, AskedBack: 1}},
		{"negative", `{"bounces":-2}`, envelope.Exchange{}},
		{"fraction", `{"bounces":2.5}`, envelope.Exchange{}},
		{"string", `{"bounces":"4"}`, envelope.Exchange{}},
		{"not an object", `"4"`, envelope.Exchange{}},
		{"huge", `{"bounces":1e300}`, envelope.Exchange{Bounces: 1 << 20}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := `{"id":"m1","from":"a","to":"b","timestamp":"2026-01-01T00:00:00Z","type":"message","ttl":3,"trace":[],` +
				`"content":{"parts":[]},"reply_to":"m0","metadata":{"exchange":` + tt.json + `}}`
			m, err := envelope.DecodeBytes([]byte(raw))
			require.NoError(t, err)
			assert.Equal(t, tt.want, m.Exchange())
		})
	}
}
