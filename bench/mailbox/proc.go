package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// receiver is a running receiving process, seen from the harness.
type receiver struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	spawned time.Time     // just before the process was started
	ready   chan struct{} // the channel has started
	got     chan struct{} // one per message (lockstep)
	done    chan struct{} // its output ended
	res     childResult
	resOK   bool
	waited  bool
}

// startReceiver runs this program again as the receiver with co and waits
// until its channel has started.
func startReceiver(ctx context.Context, co childOptions) (*receiver, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own binary: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, append([]string{childFlag}, co.args()...)...)
	cmd.Env = append(os.Environ(), envChild+"=1")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r := &receiver{cmd: cmd, stdin: stdin, ready: make(chan struct{}),
		got: make(chan struct{}, co.n), done: make(chan struct{})}
	r.spawned = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start receiver: %w", err)
	}
	go r.read(stdout)
	select {
	case <-r.ready:
		return r, nil
	case <-r.done:
		return nil, errors.Join(errors.New("receiver ended before it was ready"), r.wait())
	case <-ctx.Done():
		r.kill()
		return nil, ctx.Err()
	}
}

// read follows the receiver's output lines: "ready", "got", "result {...}".
func (r *receiver) read(stdout io.Reader) {
	defer close(r.done)
	br := bufio.NewReaderSize(stdout, 1<<16)
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "ready":
			close(r.ready)
		case line == "got":
			select {
			case r.got <- struct{}{}:
			default: // more than announced: the count check reports it
			}
		case strings.HasPrefix(line, "result "):
			r.resOK = json.Unmarshal([]byte(strings.TrimPrefix(line, "result ")), &r.res) == nil
		}
		if err != nil {
			return
		}
	}
}

// awaitGot waits for the receiver to report one more message.
func (r *receiver) awaitGot(ctx context.Context) error {
	select {
	case <-r.got:
		return nil
	case <-r.done:
		return errors.Join(errors.New("receiver ended early"), r.wait())
	case <-ctx.Done():
		return ctx.Err()
	}
}

// finish waits for the receiver to receive everything and exit, and
// returns its result.
func (r *receiver) finish(ctx context.Context) (childResult, error) {
	select {
	case <-r.done:
	case <-ctx.Done():
		r.kill()
		return r.res, ctx.Err()
	}
	if err := r.wait(); err != nil {
		return r.res, err
	}
	if !r.resOK {
		return r.res, errors.New("receiver exited without a result")
	}
	return r.res, nil
}

// wait reaps the process once its output has ended.
func (r *receiver) wait() error {
	if r.waited {
		return nil
	}
	<-r.done
	r.waited = true
	r.stdin.Close()
	if err := r.cmd.Wait(); err != nil {
		return fmt.Errorf("receiver: %w", err)
	}
	return nil
}

// kill ends the receiver if it still runs (a no-op after finish).
func (r *receiver) kill() {
	if r.waited {
		return
	}
	r.stdin.Close() // the receiver stops when its stdin closes
	select {
	case <-r.done:
	case <-time.After(5 * time.Second):
		_ = r.cmd.Process.Kill()
	}
	_ = r.wait()
}
