package main_test

import "os"

// drainSignal is nil: windows has no SIGUSR1, and a host there drains only
// when asked through the store (switchboard drain).
var drainSignal os.Signal
