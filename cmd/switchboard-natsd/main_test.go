package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server answers at the URL it prints, with JetStream, until its
// input ends; then run returns 0.
func TestServesUntilStdinEnds(t *testing.T) {
	t.Parallel()
	in, feed := io.Pipe()
	out, printed := io.Pipe()
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() { code <- run(context.Background(), []string{"-dir", t.TempDir()}, in, printed, &stderr) }()
	url, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	url = strings.TrimSpace(url)
	assert.True(t, strings.HasPrefix(url, "nats://127.0.0.1:"), url)

	nc, err := nats.Connect(url)
	require.NoError(t, err)
	js, err := nc.JetStream()
	require.NoError(t, err)
	_, err = js.AccountInfo()
	require.NoError(t, err, "JetStream is on")
	nc.Close()

	require.NoError(t, feed.Close())
	assert.Equal(t, 0, <-code, stderr.String())
}

// It ends at once, too, when its context does (SIGTERM).
func TestStopsOnSignal(t *testing.T) {
	t.Parallel()
	in, _ := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	out, printed := io.Pipe()
	code := make(chan int, 1)
	go func() { code <- run(ctx, []string{"-dir", t.TempDir()}, in, printed, io.Discard) }()
	_, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	cancel()
	assert.Equal(t, 0, <-code)
}

func TestUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{nil, {"-dir"}, {"-dir", "x", "extra"}, {"-nope"}} {
		var stderr bytes.Buffer
		assert.Equal(t, 2, run(context.Background(), args, strings.NewReader(""), io.Discard, &stderr), "%q", args)
		assert.NotEmpty(t, stderr.String())
	}
}
