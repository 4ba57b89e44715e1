//go:build race

package cli

// Under -race, TestVersionOfABuiltBinary builds switchboard with it too: the build
// then reuses the packages go test compiled, instead of compiling the
// whole program a second time.
func init() { raceFlags = append(raceFlags, "-race") }
