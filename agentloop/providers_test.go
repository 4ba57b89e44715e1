package agentloop_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/agentloop"
	_ "github.com/switchboard-dev/switchboard/agentloop/provider/scripted" // registers the kind "scripted"
)

// providerReturning is a factory that fails with err, to tell which one
// was called.
func providerReturning(err error) agentloop.ProviderFactory {
	return func(agentloop.ProviderSettings) (agent.Provider, error) { return nil, err }
}

func TestProviderRegistryRegisterPanics(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, kind string
		factory    agentloop.ProviderFactory
		want       string // the panic message
	}{
		{"empty kind", "", providerReturning(nil), "agentloop: RegisterProvider with an empty kind"},
		{"nil factory", "openai", nil, `agentloop: RegisterProvider of kind "openai" with a nil factory`},
		{"duplicate", "dup", providerReturning(nil), `agentloop: RegisterProvider called twice for kind "dup"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := agentloop.NewProviderRegistry()
			r.Register("dup", providerReturning(nil))
			assert.PanicsWithValue(t, tt.want, func() { r.Register(tt.kind, tt.factory) })
			assert.Equal(t, []string{"dup"}, r.Kinds(), "a refused Register changes nothing")
		})
	}
}

func TestProviderRegistryLookup(t *testing.T) {
	t.Parallel()
	r := agentloop.NewProviderRegistry()
	errA, errB := errors.New("a"), errors.New("b")
	r.Register("openai", providerReturning(errA))
	r.Register("anthropic", providerReturning(errB))
	assert.Equal(t, []string{"anthropic", "openai"}, r.Kinds(), "sorted")

	f, err := r.Lookup("openai")
	require.NoError(t, err)
	_, err = f(agentloop.ProviderSettings{})
	assert.Same(t, errA, err)
	f, err = r.Lookup("anthropic")
	require.NoError(t, err)
	_, err = f(agentloop.ProviderSettings{})
	assert.Same(t, errB, err)

	for _, kind := range []string{"gemini", "OpenAI", ""} {
		_, err = r.Lookup(kind)
		require.ErrorIs(t, err, agentloop.ErrProviderNotLinked, kind)
	}
	_, err = agentloop.NewProviderRegistry().Lookup("anthropic")
	assert.EqualError(t, err, `provider kind "anthropic" is not in this build (forgotten import of github.com/switchboard-dev/switchboard/agentloop/provider/anthropic?)`)
}

// The default registry holds what the program (here: this test) imports,
// and only that.
func TestDefaultProviderRegistry(t *testing.T) {
	t.Parallel()
	assert.Contains(t, agentloop.Providers(), "scripted")
	assert.NotContains(t, agentloop.Providers(), "anthropic", "not imported by this test")
	f, err := agentloop.LookupProvider("scripted")
	require.NoError(t, err)
	p, err := f(agentloop.ProviderSettings{Name: "scripted"})
	require.NoError(t, err)
	assert.NotNil(t, p)
	_, err = agentloop.LookupProvider("anthropic")
	assert.ErrorIs(t, err, agentloop.ErrProviderNotLinked)
	assert.Same(t, agentloop.DefaultProviderRegistry(), agentloop.DefaultProviderRegistry())
}
