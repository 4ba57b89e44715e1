package openai_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/provider/openai"
	"github.com/switchboard-dev/switchboard/config"
)

// The package registers its kind; the factory sends the resolved key to
// the resolved endpoint, with the resolved model and the entry's headers,
// and a bad setting is an error with no provider.
func TestRegistered(t *testing.T) {
	t.Parallel()
	f, err := agentloop.LookupProvider(openai.Kind)
	require.NoError(t, err)
	var auth, team string
	var model any
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, _ int) {
		auth, team, model = r.Header.Get("Authorization"), r.Header.Get("X-Team"), body["model"]
		writeJSON(w, 200, completion(map[string]any{"content": "hi"}, "stop"))
	})
	p, err := f(agentloop.ProviderSettings{Name: "deepseek", APIKey: "sk", APIBase: s.URL + "/v1", Model: "m1",
		Config: config.ProviderConfig{ExtraHeaders: map[string]string{"X-Team": "a"}}, HTTPClient: http.DefaultClient})
	require.NoError(t, err)
	_, err = p.Chat(context.Background(), request(agent.Message{Role: agent.RoleUser, Content: "hi"}))
	require.NoError(t, err)
	assert.Equal(t, "Bearer sk", auth)
	assert.Equal(t, "a", team)
	assert.Equal(t, "m1", model)

	p, err = f(agentloop.ProviderSettings{APIBase: "not a url"})
	assert.Error(t, err)
	assert.Nil(t, p, "no provider, not a nil *Provider")
}
