//go:build unix

package main_test

import (
	"os"
	"syscall"
)

// drainSignal asks a running host to drain (switchboard run catches it).
var drainSignal os.Signal = syscall.SIGUSR1
