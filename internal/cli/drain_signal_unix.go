//go:build unix

package cli

import (
	"os"
	"os/signal"
	"syscall"
)

// onDrainSignal calls drain at every SIGUSR1 (kill -USR1 PID asks a
// running host to drain, see `switchboard drain`) until the returned stop
// is called.
func onDrainSignal(drain func()) (stop func()) {
	sig := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		for {
			select {
			case <-sig:
				drain()
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(sig)
		close(done)
	}
}
