package demo

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// natsStartLimit bounds the start of the demo's nats-server.
const natsStartLimit = 20 * time.Second

// natsBuildLimit bounds the build of switchboard-natsd from source, which
// compiles the NATS server the first time (minutes on a busy machine).
const natsBuildLimit = 15 * time.Minute

// natsStopLimit bounds its stop once its input is closed.
const natsStopLimit = 10 * time.Second

// natsPingTimeout bounds the connection to a server named by --nats-url.
const natsPingTimeout = 5 * time.Second

// startNATS starts switchboard-natsd (a nats-server with JetStream on a
// free port of 127.0.0.1, storing in dir) and returns its URL and what
// stops it. The server runs in a process of its own so that no agent
// process links one; it ends when its input is closed, which happens when
// stop is called or this process is gone. ctx ends the search for the
// server program (a build from source) and the wait for its start.
func startNATS(ctx context.Context, dir string) (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("nats-server: find this program: %w", err)
	}
	bctx, cancel := context.WithTimeoutCause(ctx, natsBuildLimit, fmt.Errorf("took longer than %s", natsBuildLimit))
	defer cancel()
	path, cleanup, err := locateNATSD(bctx, self, fromThisModule())
	if err != nil {
		return "", nil, fmt.Errorf("nats-server: %w", err)
	}
	cleanup = sync.OnceFunc(cleanup)
	url, stop, err := runNATSD(ctx, path, dir, cleanup)
	if err != nil {
		cleanup()
	}
	return url, stop, err
}

// runNATSD runs the server program at path, storing in dir, until its
// input is closed; stop closes it, waits for the end and then calls
// cleanup. ctx ends the wait for its URL.
func runNATSD(ctx context.Context, path, dir string, cleanup func()) (string, func(), error) {
	cmd := exec.Command(path, "-dir", dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("nats-server: %w", err)
	}
	exited := make(chan error, 1)
	stop := func() {
		_ = in.Close()
		select {
		case <-exited:
		case <-time.After(natsStopLimit):
			_ = cmd.Process.Kill()
			<-exited
		}
		cleanup()
	}
	url := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		url <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, out)
		exited <- cmd.Wait()
	}()
	select {
	case u := <-url:
		if strings.HasPrefix(u, "nats://") {
			return u, stop, nil
		}
		stop()
		return "", nil, fmt.Errorf("nats-server: %s", cmp.Or(strings.TrimSpace(stderr.String()), "ended without a URL"))
	case <-time.After(natsStartLimit):
		_ = cmd.Process.Kill()
		<-exited
		return "", nil, errors.New("nats-server: not ready within " + natsStartLimit.String())
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-exited
		return "", nil, fmt.Errorf("nats-server: %w", context.Cause(ctx))
	}
}

// pingNATS connects to the server at url and disconnects.
func pingNATS(url string) error {
	nc, err := nats.Connect(url, nats.Name("switchboard demo"), nats.Timeout(natsPingTimeout))
	if err != nil {
		return err
	}
	nc.Close()
	return nil
}
