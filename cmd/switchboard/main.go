package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/switchboard-dev/switchboard/internal/cli"
	"github.com/switchboard-dev/switchboard/internal/stopsignal"

	// The modules switchboard ships. Each registers itself by name (a
	// provider kind, a mailbox backend, a channel type) when imported;
	// host and the command line import none of them. A program that
	// wants fewer or others imports those instead.
	_ "github.com/switchboard-dev/switchboard/agentloop/provider/anthropic"     // provider kind "anthropic"
	_ "github.com/switchboard-dev/switchboard/agentloop/provider/openai"        // provider kind "openai" (every OpenAI-compatible server)
	_ "github.com/switchboard-dev/switchboard/agentloop/provider/scripted"      // provider kind "scripted"
	_ "github.com/switchboard-dev/switchboard/channels/feishu"                  // channel type "feishu" (Feishu/Lark)
	_ "github.com/switchboard-dev/switchboard/channels/httpapi"                 // channel type "http" (an API for programs, OpenAI-compatible)
	_ "github.com/switchboard-dev/switchboard/channels/mailbox"                 // channel type "mailbox"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"   // mailbox backend "fs"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore" // mailbox backend "nats"
	_ "github.com/switchboard-dev/switchboard/channels/slack"                   // channel type "slack"
	_ "github.com/switchboard-dev/switchboard/channels/telegram"                // channel type "telegram"
	_ "github.com/switchboard-dev/switchboard/channels/terminal"                // channel type "terminal" (switchboard agent)
	_ "github.com/switchboard-dev/switchboard/internal/feishustub"              // channel type "feishu-stub" (the demo's stand-in)
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
	// SIGINT and SIGTERM are caught from the program's first moments (the
	// initialiser of stopsignal): one that comes while the program starts
	// stops it cleanly, as later.
	ctx, stop := stopsignal.Context(context.Background())
	code := cli.Main(ctx, os.Args[1:], env)
	stop()
	os.Exit(code)
}
