// Command switchboard is the command line of the switchboard agent framework:
// it runs a host (run), sends and receives mailbox messages on behalf of an
// agent (send, recv), inspects the mailbox tree (inbox, agents, thread,
// watch) and repairs it (doctor). See docs/cli.md.
//
// Exit status: 0 on success, 1 on failure, 2 on bad usage; errors are one
// line on stderr.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/switchboard-dev/switchboard/internal/cli"
)

// version is set at build time: go build -ldflags "-X main.version=1.2.3".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Env{
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Environ: os.Environ(),
		Version: version,
	})
	stop()
	os.Exit(code)
}
