package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"syscall"
	"time"

	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore" // registers the mailbox backend "fs"
)

// childFlag, as the first argument, makes the process the receiver; it is
// not listed by -h. envChild is set for that process as well, so that a
// test binary (whose own flags come first) knows to run it from TestMain.
const (
	childFlag = "-child"
	envChild  = "SWITCHBOARD_BENCH_CHILD"
)

// Default message counts per mode (-n overrides them all).
const (
	defaultLatencyN    = 2000
	defaultThroughputN = 10000
	defaultBacklogN    = 100000
)

// options are the command-line flags.
type options struct {
	mode       string
	n          int
	root       string
	size       int
	gap        time.Duration
	fsync      string
	keep       bool
	cpuprofile string
	timeout    time.Duration
	// The nanobot mode's own flags.
	rounds      int
	python      string
	switchboard string
	jsonOut     string
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses args and runs the harness (or, with -child, the receiver).
// It returns the exit status: 0, 1 on failure, 2 on bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == childFlag {
		if err := runChild(args[1:], os.Stdin, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, "mailbox bench receiver:", err)
			return 1
		}
		return 0
	}
	var o options
	fl := flag.NewFlagSet("mailbox", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&o.mode, "mode", "all", "what to measure: latency, throughput, backlog, all (those three), nanobot (side by side with nanobot's algorithm and the raw file operations) or send (switchboard send --to all beside the raw file operations)")
	fl.IntVar(&o.n, "n", 0, fmt.Sprintf("messages per run (default: latency %d, throughput %d, backlog %d, plus a backlog of n/10 for comparison; nanobot %d; send: registered agents, default %d and %d)",
		defaultLatencyN, defaultThroughputN, defaultBacklogN, defaultNanobotN, sendFanouts[0], sendFanouts[1]))
	fl.StringVar(&o.root, "root", os.TempDir(), "folder in which to make the temporary mailbox trees (pick the disk to measure)")
	fl.IntVar(&o.size, "size", 1024, "bytes of text in each message")
	fl.DurationVar(&o.gap, "gap", time.Millisecond, "latency: pause between one receipt and the next send")
	fl.StringVar(&o.fsync, "fsync", "both", "durability to measure: on, off or both")
	fl.BoolVar(&o.keep, "keep", false, "keep the temporary mailbox trees")
	fl.StringVar(&o.cpuprofile, "cpuprofile", "", "write the sender's CPU profile to `FILE` and each receiver's to FILE.<run>")
	fl.DurationVar(&o.timeout, "timeout", 10*time.Minute, "give up on a receiver that has not received everything after this long")
	fl.IntVar(&o.rounds, "rounds", 1, fmt.Sprintf("nanobot, send: times to repeat every contender (the tables give medians; send does at least %d)", minSendRounds))
	fl.StringVar(&o.python, "python", "python3", "nanobot: the Python 3 interpreter that runs nanobot's algorithm")
	fl.StringVar(&o.switchboard, "switchboard", "", "nanobot, send: the switchboard binary to time (default: go build of this module's cmd/switchboard)")
	fl.StringVar(&o.jsonOut, "json", "", "nanobot: also write the results as JSON to `FILE`")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := o.check(fl.NArg()); err != nil {
		fmt.Fprintln(stderr, "mailbox bench:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := harness(ctx, o, stdout); err != nil {
		fmt.Fprintln(stderr, "mailbox bench:", err)
		return 1
	}
	return 0
}

// check validates the flags.
func (o *options) check(extra int) error {
	switch {
	case extra > 0:
		return errors.New("unexpected arguments; see -h")
	case !slices.Contains([]string{"latency", "throughput", "backlog", "all", "nanobot", "send"}, o.mode):
		return fmt.Errorf("-mode %q: want latency, throughput, backlog, all, nanobot or send", o.mode)
	case o.fsync != "on" && o.fsync != "off" && o.fsync != "both":
		return fmt.Errorf("-fsync %q: want on, off or both", o.fsync)
	case o.n < 0 || o.size < 0:
		return errors.New("-n and -size must not be negative")
	case o.rounds < 1:
		return fmt.Errorf("-rounds %d: want 1 or more", o.rounds)
	case o.mode != "nanobot" && o.jsonOut != "":
		return errors.New("-json is for -mode nanobot")
	case o.mode != "nanobot" && o.mode != "send" && o.switchboard != "":
		return errors.New("-switchboard is for -mode nanobot and -mode send")
	}
	return nil
}

// durabilities returns the fsync settings to measure.
func (o *options) durabilities() []bool {
	switch o.fsync {
	case "on":
		return []bool{true}
	case "off":
		return []bool{false}
	}
	return []bool{true, false}
}

// count returns -n, or def when -n was not given.
func (o *options) count(def int) int {
	if o.n > 0 {
		return o.n
	}
	return def
}

// harness makes the work folder, runs the chosen modes and prints tables.
func harness(ctx context.Context, o options, out io.Writer) (err error) {
	work, err := os.MkdirTemp(o.root, "switchboard-bench-")
	if err != nil {
		return fmt.Errorf("make work folder: %w", err)
	}
	if o.keep {
		defer fmt.Fprintln(out, "kept", work)
	} else {
		defer func() { err = errors.Join(err, os.RemoveAll(work)) }()
	}
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
	env := &runEnv{opts: o, work: work, out: out}
	env.printMachine()
	modes := []string{o.mode}
	if o.mode == "all" {
		modes = []string{"latency", "throughput", "backlog"}
	}
	for _, m := range modes {
		var err error
		switch m {
		case "latency":
			err = env.latency(ctx)
		case "throughput":
			err = env.throughput(ctx)
		case "backlog":
			err = env.backlog(ctx)
		case "nanobot":
			err = env.sideBySide(ctx)
		case "send":
			err = env.sendAll(ctx)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
	}
	fmt.Fprintln(out)
	env.printLoad("end")
	return nil
}
