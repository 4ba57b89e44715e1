package main_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestConsoleRefusesNonLoopbackWithoutToken: a console on an address other
// than loopback needs SWITCHBOARD_CONSOLE_TOKEN, and says so.
func TestConsoleRefusesNonLoopbackWithoutToken(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	r := s.run("console", "--listen", "0.0.0.0:0")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "not a loopback address: set SWITCHBOARD_CONSOLE_TOKEN")
	assert.True(t, strings.HasPrefix(r.stderr, "switchboard: "), r.stderr)
}
