package testkit

import (
	"flag"
	"os"
	"testing"
)

// RunOnly runs only the tests that pattern matches (as -test.run would)
// and exits: for a TestMain of a platform where the package's other tests
// cannot run, such as the folder store's on windows.
func RunOnly(m *testing.M, pattern string) {
	flag.Parse()
	_ = flag.Set("test.run", pattern)
	os.Exit(m.Run())
}
