//go:build !linux

package main

// maxRSS is not measured on this system.
func maxRSS() int64 { return 0 }

// fsType is not detected on this system.
func fsType(string) string { return "unknown" }

// syncAll does nothing on this system.
func syncAll() {}
