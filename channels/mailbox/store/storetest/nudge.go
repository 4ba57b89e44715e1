package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testDrainNudge: a drain request recorded by another process is found by
// reading it (DrainRequested); on a backend that nudges, the agent's
// listener (WatchDrainRequests) is also called after RequestDrain, and
// only the listener of the agent asked (a listener of another agent is
// not called before its own request); on one that does not,
// WatchDrainRequests fails with ErrNotSupported.
func (s *suite) testDrainNudge(t *testing.T) {
	w := s.world(t)
	agentSide, operator := w.open(t, nil), w.open(t, nil)
	ctx := testkit.Ctx(t)
	listen := func(agent string) (<-chan struct{}, func(), error) {
		nudged := make(chan struct{}, 16)
		// A context without a deadline, as the running agent's.
		stop, err := agentSide.WatchDrainRequests(context.Background(), agent, func() { nudged <- struct{}{} })
		return nudged, stop, err
	}
	bob, stopBob, err := listen("bob")
	if !Has(t, s.feat.Nudge(), agentSide) {
		require.ErrorIs(t, err, store.ErrNotSupported)
		req := store.DrainRequest{At: time.Now().UTC().Truncate(time.Millisecond), By: "operator"}
		require.NoError(t, operator.RequestDrain(ctx, "bob", req))
		got, ok, err := agentSide.DrainRequested(ctx, "bob")
		require.NoError(t, err)
		require.True(t, ok)
		assert.True(t, req.At.Equal(got.At))
		return
	}
	require.NoError(t, err)
	defer stopBob()
	carol, stopCarol, err := listen("carol")
	require.NoError(t, err)
	_, _, err = listen("not a valid id")
	require.Error(t, err, "an agent id that is not valid")

	req := store.DrainRequest{At: time.Now().UTC().Truncate(time.Millisecond), By: "operator"}
	require.NoError(t, operator.RequestDrain(ctx, "bob", req))
	testkit.Recv(t, bob, "bob nudged")
	got, ok, err := agentSide.DrainRequested(ctx, "bob")
	require.NoError(t, err)
	require.True(t, ok, "the request is recorded before the nudge")
	assert.True(t, req.At.Equal(got.At))
	assert.Equal(t, "operator", got.By)

	require.NoError(t, operator.RequestDrain(ctx, "carol", req))
	testkit.Recv(t, carol, "carol nudged")
	// Nudges of one connection arrive in order: carol's came after bob's,
	// so a nudge of bob's listener for carol's request would be here now.
	assert.Empty(t, bob, "bob's listener is not nudged for carol")
	stopCarol()
	stopCarol() // a second stop does nothing

	stopped := make(chan struct{})
	go func() { stopBob(); close(stopped) }()
	testkit.Closed(t, stopped, "stop returns")
	require.NoError(t, operator.RequestDrain(context.Background(), "bob", req), "a request without a listener")
}
