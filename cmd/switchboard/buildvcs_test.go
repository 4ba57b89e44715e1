package main_test

// The binaries under test record no VCS revision, so that their version
// line is the same in a clone (where go build records one by default)
// and elsewhere; internal/cli's TestVersionOfABuiltBinary checks a build
// that records it.
func init() { buildFlags = append(buildFlags, "-buildvcs=false") }
