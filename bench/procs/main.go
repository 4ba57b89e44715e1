package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore" // the folder store
)

// options are the command-line flags.
type options struct {
	n            int
	backends     []string
	watch        string
	idle, warmup time.Duration
	sends        int
	gap          time.Duration
	startLimit   time.Duration
	bin, root    string
	idleBin      string // the raw idle process (./bench/procs/idle), built
	keep         bool
	work         string // the run's folder
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(os.Args) > 1 && os.Args[1] == childArg {
		if err := runChild(ctx, os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "procs child:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "procs:", err)
		os.Exit(1)
	}
}

// run parses args, measures each backend and prints the reports.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if o.work, err = os.MkdirTemp(o.root, "procs-"); err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(o.work)
	}
	if o.bin == "" {
		fmt.Fprintln(stderr, "building switchboard")
		if o.bin, err = build(ctx, o.work, "./cmd/switchboard"); err != nil {
			return err
		}
	}
	if o.idleBin, err = build(ctx, o.work, "./bench/procs/idle"); err != nil {
		// The other figures do not need it.
		fmt.Fprintf(stderr, "procs: the raw idle processes are left out: %v\n", err)
	}
	var missed []string
	for _, name := range o.backends {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		be, err := openBackend(ctx, name, o)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		r, err := measure(ctx, o, be, o.bin, self, stderr)
		be.close()
		if r != nil {
			r.print(stdout)
			fmt.Fprintln(stdout)
			for _, m := range r.missed() {
				missed = append(missed, name+": "+m)
			}
		}
		if err != nil {
			// The next backend is still measured: one that failed says
			// nothing of the others.
			fmt.Fprintf(stderr, "procs: %s: %v\n", name, err)
			missed = append(missed, fmt.Sprintf("%s: %v", name, err))
		}
	}
	if len(missed) > 0 {
		return fmt.Errorf("%w: %s", errMissed, strings.Join(missed, ", "))
	}
	return nil
}

// errMissed is run's error when it measured everything and a figure
// missed its target.
var errMissed = errors.New("targets missed")

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	var backends string
	fl := flag.NewFlagSet("procs", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.IntVar(&o.n, "n", 1000, "agent processes to start")
	fl.StringVar(&backends, "backend", "fs", "what the agents run on: fs, nats (one server), cluster (three, replicated), or all")
	fl.StringVar(&o.watch, "watch", "", "the agents' "+"SWITCHBOARD_WATCH on the folder store: shared (default), poll, local")
	fl.DurationVar(&o.idle, "idle", 30*time.Second, "how long the CPU of the idle agents is measured")
	fl.DurationVar(&o.warmup, "warmup", 10*time.Second, "wait after every agent listens before measuring")
	fl.IntVar(&o.sends, "sends", 200, "messages sent one at a time for the latency")
	fl.DurationVar(&o.gap, "gap", 20*time.Millisecond, "pause between two of those sends")
	fl.DurationVar(&o.startLimit, "start-limit", 2*time.Minute, "how long to wait for every agent to listen")
	fl.StringVar(&o.bin, "bin", "", "the switchboard binary (default: built from ./cmd/switchboard)")
	fl.StringVar(&o.root, "root", "", "folder for the run (default the system's temporary folder)")
	fl.BoolVar(&o.keep, "keep", false, "keep the run's folder")
	if err := fl.Parse(args); err != nil {
		return o, err
	}
	if fl.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fl.Args())
	}
	if o.n <= 0 || o.sends <= 0 || o.idle < 0 || o.warmup < 0 || o.gap < 0 {
		return o, errors.New("-n and -sends must be positive, -idle, -warmup and -gap not negative")
	}
	switch backends {
	case "fs", "nats", "cluster":
		o.backends = []string{backends}
	case "all":
		o.backends = []string{"fs", "nats", "cluster"}
	default:
		return o, fmt.Errorf("-backend %q: want fs, nats, cluster or all", backends)
	}
	switch o.watch {
	case "", "shared", "poll", "local":
	default:
		return o, fmt.Errorf("-watch %q: want shared, poll or local", o.watch)
	}
	return o, nil
}

// openBackend makes the store the agents run on.
func openBackend(ctx context.Context, name string, o options) (backend, error) {
	dir := filepath.Join(o.work, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	switch name {
	case "fs":
		return newFSBackend(dir, o.watch)
	case "nats":
		return newNATSBackend(ctx, dir, 1)
	default:
		return newNATSBackend(ctx, dir, 3)
	}
}

// build builds pkg (./cmd/switchboard, ./bench/procs/idle) of the module
// the current folder is in into dir/bin and returns the binary's path.
func build(ctx context.Context, dir, pkg string) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run procs inside the switchboard module")
	}
	bin := filepath.Join(dir, "bin", filepath.Base(pkg))
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	cmd.Dir = filepath.Dir(mod)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return bin, nil
}
