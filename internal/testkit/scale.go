package testkit

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// ScaleEnv names the environment variable that multiplies every limit of
// the tests (WaitLimit and what For returns), for a machine slower or
// busier than the one the limits are made for (2 cores shared by several
// builds, tests run with -race): with a factor above 1 give go test a
// -timeout to match, e.g.
//
//	SWITCHBOARD_TEST_TIMEOUT_SCALE=3 go test -race -timeout 30m ./...
//
// Unset, the factor is measured when the test binary starts (see Scale).
const ScaleEnv = "SWITCHBOARD_TEST_TIMEOUT_SCALE"

// Scale is the factor ScaleEnv sets. When it is unset or empty, Scale is
// measured from the machine's load when the test binary starts: 1 up to
// loadPerCore runnable tasks per core (the 1-minute load average), and
// growing with the load above that, up to maxLoadScale. A value of
// ScaleEnv that is not a number above 0 panics when the test binary
// starts, naming the variable: a typo must not quietly shorten every limit.
var Scale = scaleOf(os.Getenv(ScaleEnv), loadAverage())

const (
	// loadPerCore is the load per core the shares of work.go are made for.
	loadPerCore = 4
	// maxLoadScale caps the factor the load gives, so that a test waiting
	// in vain still fails in minutes.
	maxLoadScale = 3
)

func scaleOf(env string, load float64) float64 {
	if env != "" {
		return parseScale(env)
	}
	return loadScale(load, runtime.NumCPU())
}

// loadScale is the factor of load on cpus cores.
func loadScale(load float64, cpus int) float64 {
	f := load / float64(max(cpus, 1)) / loadPerCore
	return min(max(f, 1), maxLoadScale)
}

// loadAverage returns the 1-minute load average, 0 where /proc/loadavg
// does not say.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 0
	}
	f, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return 0
	}
	return f
}

func parseScale(v string) float64 {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		panic(fmt.Sprintf("%s=%q: want a number above 0, such as 1.5 or 3", ScaleEnv, v))
	}
	return f
}

// Scaled returns d times Scale.
func Scaled(d time.Duration) time.Duration { return time.Duration(float64(d) * Scale) }
