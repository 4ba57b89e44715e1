package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// startLimit bounds the wait for the server to accept connections.
const startLimit = 20 * time.Second

func main() {
	signal.Ignore(os.Interrupt)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run serves until stdin ends or ctx does; it returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("switchboard-natsd", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dir := fl.String("dir", "", "folder for JetStream's files (required)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *dir == "" || fl.NArg() > 0 {
		fmt.Fprintln(stderr, "switchboard-natsd: want -dir FOLDER and no arguments")
		return 2
	}
	srv, err := server.NewServer(&server.Options{
		ServerName: "switchboard-demo", Host: "127.0.0.1", Port: server.RANDOM_PORT,
		JetStream: true, StoreDir: *dir, MaxPayload: 4 << 20, NoLog: true, NoSigs: true,
	})
	if err != nil {
		fmt.Fprintf(stderr, "switchboard-natsd: %v\n", err)
		return 1
	}
	go srv.Start()
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	if !srv.ReadyForConnections(startLimit) {
		fmt.Fprintf(stderr, "switchboard-natsd: not ready within %s\n", startLimit)
		return 1
	}
	if _, err := fmt.Fprintln(stdout, srv.ClientURL()); err != nil {
		return 1
	}
	ended := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, stdin); close(ended) }()
	select {
	case <-ended:
	case <-ctx.Done():
	}
	return 0
}
