package main

import (
	"context"
	"errors"
	"time"
)

// newNATSBackend starts nodes NATS servers (one, or a cluster of three
// with replicated streams) for the agents.
func newNATSBackend(ctx context.Context, dir string, nodes int) (backend, error) {
	return nil, errors.New("not yet")
}

var _ = time.Second
