package scripted_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
)

// The package registers its kind, whose factory needs no settings.
func TestRegistered(t *testing.T) {
	t.Parallel()
	f, err := agentloop.LookupProvider(scripted.Kind)
	require.NoError(t, err)
	p, err := f(agentloop.ProviderSettings{})
	require.NoError(t, err)
	assert.IsType(t, &scripted.Provider{}, p)
}
