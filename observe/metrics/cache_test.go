package metrics_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/internal/testkit"
	"github.com/switchboard-dev/switchboard/observe/metrics"
)

// A request that read part of its prompt from the provider's cache counts
// as a cache hit, and its cached and cache-written tokens are observed
// under their own token types; one that read nothing from the cache is no
// hit.
func TestPromptCacheHitsAndTokens(t *testing.T) {
	t.Parallel()
	m := metrics.New(metrics.Options{Agent: "coder"})
	h := m.Hook()
	turn := agent.NewTurn(bus.InboundMessage{ID: "m-1"})
	for _, u := range []agent.Usage{
		{InputTokens: 2000, OutputTokens: 10, CacheWriteTokens: 1900},
		{InputTokens: 2100, OutputTokens: 12, CachedTokens: 1920},
		{InputTokens: 2200, OutputTokens: 8, CachedTokens: 2048},
	} {
		_, end, err := h.Chat(context.Background(), turn, &agent.Request{Model: "claude-x"})
		require.NoError(t, err)
		end(&agent.Response{Model: "claude-x", Usage: u}, nil)
	}
	srv, err := metrics.Listen("127.0.0.1:0", m, nil, nil, nil)
	require.NoError(t, err)
	defer srv.Close(testkit.Ctx(t))
	f := Scrape(t, "http://"+srv.Addr()+"/metrics")

	assert.Equal(t, 2.0, value(t, f, "switchboard_gen_ai_client_prompt_cache_hits_total",
		map[string]string{"agent": "coder", "gen_ai_request_model": "claude-x"}))
	tokens := func(typ string) float64 {
		for _, mf := range f["switchboard_gen_ai_client_token_usage"].GetMetric() {
			for _, l := range mf.GetLabel() {
				if l.GetName() == "gen_ai_token_type" && l.GetValue() == typ {
					return mf.GetHistogram().GetSampleSum()
				}
			}
		}
		return 0
	}
	assert.Equal(t, 6300.0, tokens("input"))
	assert.Equal(t, 3968.0, tokens("cache_read"), "the part of input read from the cache")
	assert.Equal(t, 1900.0, tokens("cache_creation"))
	assert.Equal(t, 2.0, value(t, f, "switchboard_gen_ai_client_token_usage", map[string]string{"gen_ai_token_type": "cache_read"}))
}
