package main

import "time"

// selfCPU is not measured on windows, where the folder store, and so this
// benchmark, does not run.
func selfCPU() time.Duration { return 0 }
