package anthropic_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/provider/anthropic"
	"github.com/switchboard-dev/switchboard/config"
)

// The package registers its kind; the factory sends the resolved key to
// the resolved endpoint, with the resolved model and the entry's headers,
// and a bad setting is an error with no provider.
func TestRegistered(t *testing.T) {
	t.Parallel()
	f, err := agentloop.LookupProvider(anthropic.Kind)
	require.NoError(t, err)
	s := newServer(t, 200, message("end_turn", map[string]any{"type": "text", "text": "hi"}))
	p, err := f(agentloop.ProviderSettings{Name: "anthropic", APIKey: "k", APIBase: s.URL, Model: "claude-x",
		Config: config.ProviderConfig{ExtraHeaders: map[string]string{"X-Team": "a"}}, HTTPClient: http.DefaultClient})
	require.NoError(t, err)
	_, err = p.Chat(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	assert.Equal(t, "k", s.headers[0].Get("X-Api-Key"))
	assert.Equal(t, "a", s.headers[0].Get("X-Team"))
	assert.Equal(t, "claude-x", s.bodies[0]["model"])

	p, err = f(agentloop.ProviderSettings{APIBase: "not a url"})
	assert.Error(t, err)
	assert.Nil(t, p, "no provider, not a nil *Provider")
}
