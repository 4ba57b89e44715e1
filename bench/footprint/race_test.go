//go:build race

package main

// The harness's test builds switchboard with -race when it runs with it:
// go test compiled those packages so already, and a build without it
// would compile the whole program a second time. What it measures is
// then a -race binary: the test checks the report, not the figures.
func init() { buildFlags = append(buildFlags, "-race") }
