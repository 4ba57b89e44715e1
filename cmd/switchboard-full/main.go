package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/switchboard-dev/switchboard/internal/cli"
	"github.com/switchboard-dev/switchboard/internal/cli/full"
)

// version is set at build time: go build -ldflags "-X main.version=1.2.3".
var version = "dev"

func main() {
	// As in switchboard: a reader that goes away makes writes fail with
	// EPIPE instead of killing the process.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Env{
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Environ: os.Environ(),
		Version: version,
		Extras:  full.Extras(),
	})
	stop()
	os.Exit(code)
}
