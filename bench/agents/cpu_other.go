//go:build !unix

package main

import "time"

// processCPU is not measured on this platform (the folder store runs on
// unix systems only).
func processCPU() time.Duration { return 0 }
