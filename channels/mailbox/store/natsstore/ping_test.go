package natsstore_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Ping answers while the server runs, and fails once it is stopped or the
// store is closed.
func TestPingFollowsTheServer(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t, t.TempDir())
	st := watchedStore(t, srv)
	require.NoError(t, st.Ping(testkit.Ctx(t)))

	srv.Stop()
	require.Error(t, st.Ping(testkit.Ctx(t)), "the server is gone")

	_ = st.Close() // drains a connection that is down: its error is not the point
	require.Error(t, st.Ping(testkit.Ctx(t)), "a closed store")
}
