package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
)

// childOptions configure the receiving process.
type childOptions struct {
	root       string        // mailbox root
	n          int           // distinct messages to receive before stopping
	fsync      bool          // channels.mailbox.fsync
	lockstep   bool          // print "got" after each message
	record     bool          // return per-message latencies
	timeout    time.Duration // give up after this long
	cpuprofile string        // write a CPU profile here
}

// args renders o as the receiver's command line (after childFlag).
func (o childOptions) args() []string {
	return []string{
		"-root", o.root, "-n", strconv.Itoa(o.n),
		"-fsync=" + strconv.FormatBool(o.fsync),
		"-lockstep=" + strconv.FormatBool(o.lockstep),
		"-record=" + strconv.FormatBool(o.record),
		"-timeout", o.timeout.String(), "-cpuprofile", o.cpuprofile,
	}
}

// parseChild reads the receiver's command line.
func parseChild(args []string, stderr io.Writer) (childOptions, error) {
	var o childOptions
	fl := flag.NewFlagSet("mailbox -child", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&o.root, "root", "", "mailbox root")
	fl.IntVar(&o.n, "n", 0, "messages to receive")
	fl.BoolVar(&o.fsync, "fsync", true, "channels.mailbox.fsync")
	fl.BoolVar(&o.lockstep, "lockstep", false, "print got after each message")
	fl.BoolVar(&o.record, "record", false, "return per-message latencies")
	fl.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up after this long")
	fl.StringVar(&o.cpuprofile, "cpuprofile", "", "CPU profile file")
	if err := fl.Parse(args); err != nil {
		return o, err
	}
	if o.root == "" || o.n <= 0 {
		return o, errors.New("-root and -n are required")
	}
	return o, nil
}

// childResult is what the receiver reports on its last line of output,
// "result <json>". Times are Unix nanoseconds.
type childResult struct {
	StartNs    int64 `json:"start_ns"`   // just before Channel.Start
	StartedNs  int64 `json:"started_ns"` // Channel.Start returned
	FirstNs    int64 `json:"first_ns"`   // first message off the bus
	LastNs     int64 `json:"last_ns"`    // last message off the bus
	Received   int   `json:"received"`   // distinct messages
	Duplicates int   `json:"duplicates"` // a message seen again
	Unknown    int   `json:"unknown"`    // a message without a probe
	// LatencyNs[seq] is receipt time minus the send time in the message;
	// RecvNs[seq] is the receipt time (only with -record).
	LatencyNs []int64 `json:"latency_ns,omitempty"`
	RecvNs    []int64 `json:"recv_ns,omitempty"`
	Mem       memPeak `json:"mem"`
}

// runChild is the receiving process: the real mailbox channel on a bus,
// with the default pollInterval of 5 s, consumed until n distinct probe
// messages came off the bus. It ends early when stdin closes (the harness
// is gone) or the timeout passes.
func runChild(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseChild(args, stderr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		cancel()
	}()
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	rec := newRecorder(o.n, o.record)
	mem := startMemSampler(10*time.Millisecond, &rec.done, o.n)
	b := bus.New(bus.DefaultCapacity)
	cfg := mailbox.DefaultConfig()
	cfg.Enabled, cfg.AgentID, cfg.MailboxesRoot, cfg.Fsync = true, receiverID, o.root, o.fsync
	cfg.Limits.PerSender.Rate = 0 // one sender floods on purpose: measure the path, not the guard
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ch, err := mailbox.New(cfg, b, mailbox.Options{Logger: logger})
	if err != nil {
		return err
	}
	rec.res.StartNs = time.Now().UnixNano()
	if err := ch.Start(ctx); err != nil {
		return err
	}
	rec.res.StartedNs = time.Now().UnixNano()
	w := bufio.NewWriter(stdout)
	say := func(s string) error {
		w.WriteString(s)
		w.WriteByte('\n')
		return w.Flush()
	}
	recvErr := say("ready")
	for recvErr == nil && rec.res.Received < o.n {
		var in bus.InboundMessage
		in, recvErr = b.ConsumeInbound(ctx)
		now := time.Now().UnixNano()
		if recvErr != nil {
			recvErr = fmt.Errorf("after %d of %d messages: %w", rec.res.Received, o.n, recvErr)
			break
		}
		in.Done() // an agent that is done at once: the message is acknowledged now
		if rec.add(in, now) && o.lockstep {
			recvErr = say("got")
		}
	}
	stopCtx, stopCancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer stopCancel()
	stopErr := ch.Stop(stopCtx)
	rec.res.Mem = mem.finish()
	if err := errors.Join(recvErr, stopErr); err != nil {
		return err
	}
	data, err := json.Marshal(rec.res)
	if err != nil {
		return err
	}
	return say("result " + string(data))
}

// recorder tallies the messages the receiver takes off the bus.
type recorder struct {
	res  childResult
	seen []bool
	done atomic.Int64 // res.Received, for the memory sampler
}

func newRecorder(n int, record bool) *recorder {
	r := &recorder{seen: make([]bool, n)}
	if record {
		r.res.LatencyNs = make([]int64, n)
		r.res.RecvNs = make([]int64, n)
	}
	return r
}

// add records one message received at now and reports whether it was a
// new probe.
func (r *recorder) add(in bus.InboundMessage, now int64) bool {
	seq, sent, ok := readProbe(in)
	switch {
	case !ok || seq < 0 || seq >= len(r.seen):
		r.res.Unknown++
		return false
	case r.seen[seq]:
		r.res.Duplicates++
		return false
	}
	r.seen[seq] = true
	r.res.Received++
	r.done.Store(int64(r.res.Received))
	if r.res.FirstNs == 0 {
		r.res.FirstNs = now
	}
	r.res.LastNs = now
	if r.res.LatencyNs != nil {
		r.res.LatencyNs[seq] = now - sent
		r.res.RecvNs[seq] = now
	}
	return true
}
