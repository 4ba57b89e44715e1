package natsstore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestDrainNudgeAcrossServerRestart: an agent listening for drain
// requests is nudged once its connection is back after a restart of the
// server (a request recorded meanwhile had no one to nudge), and the
// nudges of requests recorded after the restart reach it again.
func TestDrainNudgeAcrossServerRestart(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "")
	agentSide, operator := store.New(ts.open(t, nil), nil), store.New(ts.open(t, nil), nil)
	nudged := make(chan struct{}, 16)
	stop, err := agentSide.WatchDrainRequests(context.Background(), "bob", func() { nudged <- struct{}{} })
	require.NoError(t, err)
	defer stop()
	req := store.DrainRequest{At: time.Now().UTC().Truncate(time.Millisecond), By: "operator"}
	require.NoError(t, operator.RequestDrain(testkit.Ctx(t), "bob", req))
	testkit.Recv(t, nudged, "nudged before the restart")

	ts.Restart(t)
	testkit.Recv(t, nudged, "nudged when the connection is back")

	// The operator's connection may still be coming back, and the
	// server's JetStream with it: ask until the request is recorded.
	ctx := testkit.Ctx(t)
	for {
		short, cancel := context.WithTimeout(ctx, time.Second)
		err := operator.RequestDrain(short, "bob", req)
		cancel()
		if err == nil {
			break
		}
		require.NoError(t, ctx.Err(), "record a drain request after the restart: %v", err)
	}
	testkit.Recv(t, nudged, "nudged after the restart")
	got, ok, err := agentSide.DrainRequested(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, req.At.Equal(got.At))
}

// TestDrainNudgePermissions: with testdata/agents.conf, coder may listen
// to its own nudges (its user may subscribe to mailbox.coder.nudge.>) and
// is nudged by the admin's drain request; it may not listen to
// researcher's. researcher's user has no such permission: its listening
// fails with store.ErrNotSupported, and it still reads the request the
// admin recorded (an agent then reads it at every heartbeat). A user
// that may not publish nudges is told so by Nudge.
func TestDrainNudgePermissions(t *testing.T) {
	t.Parallel()
	url := startAgentsServer(t)
	open := func(user, password string) *store.Store {
		t.Helper()
		nc, cfg := connectAs(t, url, user, password)
		o := cfg.Options(nc)
		o.OwnConn = true
		return store.New(openWith(t, o), nil)
	}
	admin := open("admin", "admin-secret")
	coder, researcher := open("coder", "coder-secret"), open("researcher", "researcher-secret")
	nudged := make(chan struct{}, 16)
	stop, err := coder.WatchDrainRequests(context.Background(), "coder", func() { nudged <- struct{}{} })
	require.NoError(t, err, "its own nudges")
	defer stop()
	_, err = coder.WatchDrainRequests(context.Background(), "researcher", func() {})
	require.ErrorIs(t, err, store.ErrNotSupported, "another agent's nudges")

	req := store.DrainRequest{At: time.Now().UTC().Truncate(time.Millisecond), By: "operator"}
	require.NoError(t, admin.RequestDrain(testkit.Ctx(t), "coder", req))
	testkit.Recv(t, nudged, "coder nudged")

	nc, cfg := connectAs(t, url, "coder", "coder-secret")
	o := cfg.Options(nc)
	o.OwnConn = true
	err = openWith(t, o).Nudge(testkit.Ctx(t), "coder", store.DrainKey)
	require.Error(t, err, "a user without permission to publish nudges is told")
	assert.Contains(t, err.Error(), "Permissions Violation for Publish")

	_, err = researcher.WatchDrainRequests(context.Background(), "researcher", func() {})
	require.ErrorIs(t, err, store.ErrNotSupported, "a user without the permission")
	require.NoError(t, admin.RequestDrain(testkit.Ctx(t), "researcher", req))
	got, ok, err := researcher.DrainRequested(testkit.Ctx(t), "researcher")
	require.NoError(t, err)
	require.True(t, ok, "read without a nudge")
	assert.True(t, req.At.Equal(got.At))
}

// TestDrainNudgeStopIsQuiet: stopping a listener that was never nudged
// calls nothing (its end does not look like a reconnect), and returns.
func TestDrainNudgeStopIsQuiet(t *testing.T) {
	ts := sharedServer(t)
	st := store.New(ts.open(t, nil), nil)
	var calls atomic.Int64
	for range 50 {
		stop, err := st.WatchDrainRequests(context.Background(), "bob", func() { calls.Add(1) })
		require.NoError(t, err)
		stop()
	}
	assert.Zero(t, calls.Load())
}
