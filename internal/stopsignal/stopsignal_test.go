//go:build unix

package stopsignal_test

import (
	"context"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/internal/stopsignal"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestSkip(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-v"}} {
		assert.True(t, stopsignal.Skip(args), "%v", args)
	}
	for _, args := range [][]string{nil, {"run"}, {"version", "--json"}, {"--root", "x", "version"}} {
		assert.False(t, stopsignal.Skip(args), "%v", args)
	}
}

// A SIGTERM caught since init (the test binary asks for no version)
// cancels the context, and the process lives on.
func TestContextEndsOnSIGTERM(t *testing.T) {
	assert.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM)) // before Context: it waits
	ctx, stop := stopsignal.Context(context.Background())
	defer stop()
	select {
	case <-ctx.Done():
	case <-testkit.Ctx(t).Done():
		t.Fatal("the context did not end")
	}
	stop() // twice is harmless
}
