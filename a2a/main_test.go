package a2a_test

import (
	"testing"

	"github.com/switchboard-dev/switchboard/internal/natstest"
)

// TestMain stops the shared NATS server of the tests that run on NATS.
func TestMain(m *testing.M) { natstest.Main(m) }
