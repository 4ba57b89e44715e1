package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

// options are the command-line flags.
type options struct {
	runs   int
	settle time.Duration
	bin    string
	peer   string
	dir    string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run parses args, measures and prints the report; it returns the exit
// status: 0, 1 on a failed measurement, 2 on bad usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o options
	fl := flag.NewFlagSet("footprint", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.IntVar(&o.runs, "runs", 200, "times each short command is started")
	fl.DurationVar(&o.settle, "settle", 6*time.Second, "how long the idle agent runs after it listens before its memory is read")
	fl.StringVar(&o.bin, "bin", "", "switchboard binary to measure (default: build ./cmd/switchboard of this module)")
	fl.StringVar(&o.peer, "peer", "", "another switchboard binary measured beside it in the same run (none by default)")
	fl.StringVar(&o.dir, "dir", "", "folder for the binaries and mailbox trees (default a fresh temporary folder, removed at the end)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "footprint: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	if o.runs <= 0 || o.settle < 0 {
		fmt.Fprintln(stderr, "footprint: -runs must be positive and -settle not negative")
		return 2
	}
	if err := measureAll(ctx, o, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "footprint:", err)
		return 1
	}
	return 0
}

// measureAll prepares the binaries and runs every measurement.
func measureAll(ctx context.Context, o options, stdout, stderr io.Writer) (err error) {
	dir := o.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "footprint-"); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	}
	hello, err := buildHello(ctx, dir)
	if err != nil {
		return err
	}
	bins := []subject{{name: "switchboard", path: o.bin}}
	if bins[0].path == "" {
		fmt.Fprintln(stderr, "building ./cmd/switchboard ...")
		if bins[0].path, err = buildSwitchboard(ctx, dir); err != nil {
			return err
		}
	}
	if o.peer != "" {
		bins = append(bins, subject{name: "peer", path: o.peer})
	}
	for i := range bins {
		if bins[i].path, err = filepath.Abs(bins[i].path); err != nil {
			return err
		}
	}
	rep := report{runs: o.runs, settle: o.settle, hello: subject{name: "hello", path: hello}, bins: bins}
	if rep.sizes, err = sizes(append([]subject{rep.hello}, bins...)); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "starting each command %d times ...\n", o.runs)
	if rep.starts, err = measureStarts(ctx, dir, rep.hello, bins, o.runs); err != nil {
		return err
	}
	if idleSupported {
		fmt.Fprintf(stderr, "idle agents (settle %s) ...\n", o.settle)
		for _, b := range bins {
			m, err := measureIdle(ctx, dir, b, o.settle)
			if err != nil {
				return fmt.Errorf("idle agent of %s: %w", b.name, err)
			}
			rep.idle = append(rep.idle, m)
		}
	}
	rep.print(stdout)
	return nil
}
