package fsstore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Environment of the sender and receiver processes (TestMailboxHelperProcess).
// The role and root variables are shared with the registry writers.
const (
	helperEnvTo      = "FSSTORE_TEST_TO"      // sender: the recipient
	helperEnvSenders = "FSSTORE_TEST_SENDERS" // sender: "from:count,..." (count 0 = until killed)
	helperEnvPad     = "FSSTORE_TEST_PAD"     // sender: up to this many random padding bytes
	helperEnvNoSync  = "FSSTORE_TEST_NOSYNC"  // "1": Options.NoSync
	helperEnvCount   = "FSSTORE_TEST_COUNT"   // receiver: messages to take (0 = until killed)
	helperEnvHold    = "FSSTORE_TEST_HOLD"    // receiver "1": keep the last one unacknowledged
	helperEnvPipe    = "FSSTORE_TEST_PIPE"    // receiver "1": AckPipelined, "durable <id>" lines
	helperRoleSend   = "mailbox-sender"
	helperRoleRecv   = "mailbox-receiver"
)

// helperLife bounds a helper process that nobody kills: it gives up then.
// It is the limit of the most work a helper is given (10,000 messages).
var helperLife = testkit.For(testkit.Messages(10000))

// TestMailboxHelperProcess is not a test: it is the body of the sender and
// receiver processes that the cross-process tests start by running the
// test binary again.
//
// A sender delivers messages from each sender id in its own goroutine, in
// sequence, the text of each starting with its sequence number, and prints
// "sent <id> <from> <seq>" after each Deliver returned (or "sent=<n>" at the
// end when every sender has a count).
//
// A receiver opens the inbox of FSSTORE_TEST_AGENT and prints
// "took <id> <redelivered>" for each message Next hands out and
// "acked <id>" after each Ack, and "idle" when Next finds the inbox empty.
// With FSSTORE_TEST_HOLD=1 it keeps the last message unacknowledged and
// waits to be killed.
func TestMailboxHelperProcess(t *testing.T) {
	role := os.Getenv(helperEnvRole)
	if role != helperRoleSend && role != helperRoleRecv {
		t.Skip("run by the cross-process mailbox tests")
	}
	ctx, cancel := context.WithTimeout(context.Background(), helperLife)
	defer cancel()
	s, err := Open(Options{Root: os.Getenv(helperEnvRoot), NoSync: os.Getenv(helperEnvNoSync) == "1"})
	require.NoError(t, err)
	defer s.Close()
	if role == helperRoleSend {
		helperSend(ctx, t, s)
	} else {
		helperReceive(ctx, t, s)
	}
}

// helperSend is the sender process.
func helperSend(ctx context.Context, t *testing.T, s *Store) {
	to := os.Getenv(helperEnvTo)
	pad, _ := strconv.Atoi(os.Getenv(helperEnvPad))
	type sender struct {
		from  string
		count int
	}
	var senders []sender
	total, report := 0, true
	for spec := range strings.SplitSeq(os.Getenv(helperEnvSenders), ",") {
		from, countText, _ := strings.Cut(spec, ":")
		count, err := strconv.Atoi(countText)
		require.NoError(t, err)
		senders = append(senders, sender{from, count})
		total += count
		report = report && count == 0
	}
	var wg sync.WaitGroup
	for _, sd := range senders {
		wg.Go(func() {
			for seq := 0; sd.count == 0 || seq < sd.count; seq++ {
				if ctx.Err() != nil {
					return
				}
				text := strconv.Itoa(seq)
				if pad > 0 {
					text += " " + strings.Repeat("p", rand.IntN(pad))
				}
				m := newMsg(sd.from, to, text)
				if err := s.Deliver(ctx, m); err != nil {
					fmt.Fprintf(os.Stderr, "deliver %s #%d: %v\n", sd.from, seq, err)
					os.Exit(1)
				}
				if report {
					fmt.Fprintf(os.Stdout, "sent %s %s %d\n", m.ID, sd.from, seq)
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, ctx.Err(), "the sender ran out of time")
	fmt.Printf("sent=%d\n", total)
}

// helperReceive is the receiver process.
func helperReceive(ctx context.Context, t *testing.T, s *Store) {
	count, err := strconv.Atoi(os.Getenv(helperEnvCount))
	require.NoError(t, err)
	hold := os.Getenv(helperEnvHold) == "1"
	open, err := s.OpenInbox(ctx, os.Getenv(helperEnvAgent))
	require.NoError(t, err)
	in := open.(*Inbox)
	defer in.Close()
	in.onWait = func() { fmt.Println("idle") }
	for i := 1; count == 0 || i <= count; i++ {
		d, err := in.Next(ctx)
		require.NoError(t, err)
		fmt.Printf("took %s %t\n", d.Message.ID, d.Redelivered)
		if hold && i == count {
			<-ctx.Done()
			t.Fatal("nobody killed the receiver")
		}
		if os.Getenv(helperEnvPipe) == "1" {
			id := d.Message.ID
			require.NoError(t, in.AckPipelined(ctx, d, func(err error) {
				if err == nil {
					fmt.Printf("durable %s\n", id)
				}
			}))
		} else {
			require.NoError(t, in.Ack(ctx, d))
		}
		fmt.Printf("acked %s\n", d.Message.ID)
	}
}

// helper is a running helper process whose output lines are collected.
type helper struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{} // closed once the output ended and the process was reaped
	err    error         // from Wait, set before done closes

	mu      sync.Mutex
	lines   []string
	changed chan struct{} // closed and replaced on every line
}

// startHelper runs TestMailboxHelperProcess in a new process with the role
// and extra environment ("KEY=value"). The process is killed, if still
// running, when the test ends.
func startHelper(t *testing.T, role, root string, env ...string) *helper {
	t.Helper()
	cmd := testkit.HelperCommand("TestMailboxHelperProcess",
		append([]string{helperEnvRole + "=" + role, helperEnvRoot + "=" + root}, env...)...)
	h := &helper{cmd: cmd, done: make(chan struct{}), changed: make(chan struct{})}
	cmd.Stderr = &h.stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			h.mu.Lock()
			h.lines = append(h.lines, sc.Text())
			close(h.changed)
			h.changed = make(chan struct{})
			h.mu.Unlock()
		}
		h.err = cmd.Wait() // only after the output was read whole
		close(h.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-h.done
	})
	return h
}

// waitLines waits until the process printed n lines that satisfy keep (nil
// keeps all) or printed a line that satisfies stop (may be nil), and
// returns whether n lines were reached. It fails the test if the process
// ends first or after testkit.WaitLimit.
func (h *helper) waitLines(t *testing.T, n int, keep, stop func(string) bool) bool {
	t.Helper()
	deadline := time.NewTimer(testkit.WaitLimit)
	defer deadline.Stop()
	for {
		ended := false
		select {
		case <-h.done: // every line is in now
			ended = true
		default:
		}
		h.mu.Lock()
		kept, stopped := 0, false
		for _, l := range h.lines {
			if keep == nil || keep(l) {
				kept++
			}
			stopped = stopped || (stop != nil && stop(l))
		}
		changed := h.changed
		h.mu.Unlock()
		switch {
		case kept >= n || stopped:
			return kept >= n
		case ended:
			t.Fatalf("helper process ended after %d of %d lines: %v\n%s", kept, n, h.err, h.stderr.String())
		}
		select {
		case <-changed:
		case <-h.done:
		case <-deadline.C:
			t.Fatalf("helper process printed %d of %d lines within %s\n%s", kept, n, testkit.WaitLimit, h.diag())
		}
	}
}

// kill sends SIGKILL and waits for the process to be reaped; the test
// fails unless the signal is what ended it.
func (h *helper) kill(t *testing.T) []string {
	t.Helper()
	require.NoError(t, h.cmd.Process.Signal(syscall.SIGKILL))
	h.wait(t)
	var exit *exec.ExitError
	require.True(t, errors.As(h.err, &exit), "helper process: %v\n%s", h.err, h.stderr.String())
	ws, ok := exit.Sys().(syscall.WaitStatus)
	require.True(t, ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL,
		"helper process ended before it was killed: %v\n%s", h.err, h.stderr.String())
	return h.output()
}

// finish waits for the process to exit on its own and requires success.
func (h *helper) finish(t *testing.T) []string {
	t.Helper()
	h.wait(t)
	require.NoError(t, h.err, "helper process failed:\n%s", h.stderr.String())
	return h.output()
}

func (h *helper) wait(t *testing.T) {
	t.Helper()
	select {
	case <-h.done:
	case <-time.After(testkit.WaitLimit):
		t.Fatalf("helper process did not end within %s\n%s", testkit.WaitLimit, h.diag())
	}
}

// diag kills the process if it still runs and returns what it wrote on
// stderr, for a failure message.
func (h *helper) diag() string {
	_ = h.cmd.Process.Signal(syscall.SIGKILL)
	<-h.done
	return h.stderr.String()
}

// changedCh returns a channel that is closed when the next line arrives.
func (h *helper) changedCh() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// output returns every line printed so far.
func (h *helper) output() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.lines...)
}
