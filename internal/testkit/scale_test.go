package testkit

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseScale(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want float64
	}{{"1", 1}, {"2.5", 2.5}, {"0.5", 0.5}} {
		assert.Equal(t, tt.want, scaleOf(tt.in, 100), "%q wins over the load", tt.in)
	}
	for _, bad := range []string{"0", "-1", "x", "NaN", "Inf", "1s"} {
		assert.PanicsWithValue(t, `SWITCHBOARD_TEST_TIMEOUT_SCALE="`+bad+`": want a number above 0, such as 1.5 or 3`,
			func() { parseScale(bad) }, "%q", bad)
	}
}

func TestScaleFollowsTheLoad(t *testing.T) {
	assert.Equal(t, 1.0, loadScale(0, 2), "idle")
	assert.Equal(t, 1.0, loadScale(8, 2), "4 a core")
	assert.Equal(t, 2.0, loadScale(16, 2))
	assert.Equal(t, 1.5, loadScale(24, 4))
	assert.Equal(t, float64(maxLoadScale), loadScale(1000, 2), "capped")
	assert.Equal(t, 1.0, loadScale(3, 0), "no cores known")
	assert.Equal(t, loadScale(20, runtime.NumCPU()), scaleOf("", 20), "unset: the load")
}

func TestForGrowsWithTheWork(t *testing.T) {
	assert.Equal(t, WaitLimit, For(0))
	assert.Equal(t, WaitLimit+Scaled(500*PerMessage), For(Messages(500)))
	assert.Equal(t, WaitLimit+Scaled(3*PerProcess+4*PerStep), For(Processes(3)+Steps(4)))
	assert.Greater(t, For(Messages(10)), For(Messages(1)))
}

// deadlined is a test whose go test -timeout ends at deadline.
type deadlined struct {
	testing.TB
	deadline time.Time
	ok       bool
}

func (d deadlined) Deadline() (time.Time, bool) { return d.deadline, d.ok }

func TestLimitEndsBeforeTheTimeout(t *testing.T) {
	assert.Equal(t, time.Minute, limitOf(deadlined{ok: false}, time.Minute), "no -timeout")
	far := deadlined{deadline: time.Now().Add(time.Hour), ok: true}
	assert.Equal(t, time.Minute, limitOf(far, time.Minute), "the timeout is far")
	near := deadlined{deadline: time.Now().Add(40 * time.Second), ok: true}
	got := limitOf(near, time.Minute)
	assert.LessOrEqual(t, got, 30*time.Second, "ends before the timeout")
	assert.Greater(t, got, 20*time.Second)
	past := deadlined{deadline: time.Now(), ok: true}
	assert.Equal(t, time.Second, limitOf(past, time.Minute), "a second at least")
}
