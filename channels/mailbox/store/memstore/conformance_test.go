package memstore_test

import (
	"testing"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
)

// TestConformance runs the backend conformance suite on the in-memory
// store: every Open is a Store of its own on one Hub.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) *storetest.Harness {
		hub := memstore.NewHub()
		return &storetest.Harness{
			Open: func(_ *testing.T, obs driver.Observer) driver.Backend {
				return hub.Open(memstore.Options{Observer: obs})
			},
			InjectRaw:       func(_ *testing.T, agent, _ string, data []byte) { hub.InjectRaw(agent, data) },
			CorruptArtifact: func(_ *testing.T, digest string, data []byte) { hub.Corrupt(digest, data) },
		}
	}, storetest.Features{})
}
