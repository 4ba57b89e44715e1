package audit

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestMain runs only TestOpenUnsupportedPlatform on windows: Open refuses
// there, so every other test would fail at its first step.
func TestMain(m *testing.M) { testkit.RunOnly(m, "^TestOpenUnsupportedPlatform$") }

func TestOpenUnsupportedPlatform(t *testing.T) {
	_, err := Open(t.TempDir(), Options{})
	require.ErrorIs(t, err, ErrUnsupportedPlatform)
}
