package stopsignal

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// caught receives the stop signals from init on; buffered, so that one
// that arrives before Context is called waits there.
var caught = make(chan os.Signal, 1)

// catching is false when init caught nothing (Skip).
var catching bool

func init() {
	if Skip(os.Args[1:]) {
		return
	}
	signal.Notify(caught, os.Interrupt, syscall.SIGTERM)
	catching = true
}

// Skip reports whether args only ask for the version line (version,
// --version or -v), for which nothing is caught.
func Skip(args []string) bool {
	return len(args) == 1 && (args[0] == "version" || args[0] == "--version" || args[0] == "-v")
}

// Context returns a copy of parent that is canceled when SIGINT or
// SIGTERM arrives, or arrived since the program started, as
// signal.NotifyContext's is (later signals are caught and change
// nothing); stop releases it and restores the signals' default action.
func Context(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	if !catching { // the signals were not caught at init: catch them from now on
		signal.Notify(caught, os.Interrupt, syscall.SIGTERM)
		catching = true
	}
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() {
		select {
		case <-caught:
			cancel()
		case <-done:
		case <-ctx.Done():
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			close(done)
			cancel()
			signal.Stop(caught)
		})
	}
}
