package testkit

import "testing"

// Parallel wraps a subtest so that it runs in parallel with its siblings;
// for the cases of a suite that each make a world of their own:
//
//	t.Run("RoundTrip", testkit.Parallel(s.testRoundTrip))
func Parallel(test func(*testing.T)) func(*testing.T) {
	return func(t *testing.T) {
		t.Parallel()
		test(t)
	}
}
