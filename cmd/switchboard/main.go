package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/switchboard-dev/switchboard/internal/cli"
	"github.com/switchboard-dev/switchboard/internal/companion"
)

// version is set at build time: go build -ldflags "-X main.version=1.2.3".
var version = "dev"

func main() {
	env := cli.Env{
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Environ: os.Environ(),
		Version: version,
	}
	if cli.IsVersion(os.Args[1:]) {
		// Printing a line needs no signal handling, whose goroutines and
		// threads would add a third to the start of the command. A reader
		// that went away still gets EPIPE, not the signal.
		signal.Ignore(syscall.SIGPIPE)
		os.Exit(cli.Main(context.Background(), os.Args[1:], env))
	}
	// A reader that goes away (switchboard recv coder | head -1) makes
	// writes to stdout fail with EPIPE instead of killing the process, so
	// recv and watch stop cleanly (recv marks the agent offline).
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	env.Delegate = func(args []string) int { return delegate(ctx, args) }
	code := cli.Main(ctx, os.Args[1:], env)
	stop()
	os.Exit(code)
}

// delegate runs args in switchboard-full: this program is built without
// the host, the MCP server, the NATS backend and the span exporter (see
// cli.Extras), which start slowly and weigh on every command.
func delegate(ctx context.Context, args []string) int {
	self, err := os.Executable()
	if err == nil {
		var full string
		if full, err = companion.Locate(ctx, self); err == nil {
			return companion.Exec(full, args)
		}
	}
	os.Stderr.WriteString("switchboard: " + err.Error() + "\n")
	return cli.ExitFailure
}
