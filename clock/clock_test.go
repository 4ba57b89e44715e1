package clock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var start = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestManualTimerFiresWhenMoved(t *testing.T) {
	t.Parallel()
	m := NewManual(start)
	tm := m.NewTimer(time.Second)
	m.Add(999 * time.Millisecond)
	select {
	case <-tm.C():
		t.Fatal("fired early")
	default:
	}
	m.Add(time.Millisecond)
	assert.Equal(t, start.Add(time.Second), <-tm.C())
	assert.Equal(t, 0, m.Waiters())
}

func TestManualStopAndReset(t *testing.T) {
	t.Parallel()
	m := NewManual(start)
	tm := m.NewTimer(time.Second)
	assert.True(t, tm.Stop())
	assert.False(t, tm.Stop())
	m.Add(time.Hour)
	select {
	case <-tm.C():
		t.Fatal("a stopped timer fired")
	default:
	}
	assert.False(t, tm.Reset(time.Minute))
	m.Add(time.Minute)
	assert.Equal(t, start.Add(time.Hour+time.Minute), <-tm.C())
}

func TestManualAfterFuncInOrder(t *testing.T) {
	t.Parallel()
	m := NewManual(start)
	got := make(chan time.Time, 2)
	m.AfterFunc(2*time.Second, func() { got <- m.Now() })
	m.AfterFunc(time.Second, func() { got <- start.Add(-time.Hour) })
	m.Add(3 * time.Second)
	seen := map[time.Time]bool{<-got: true, <-got: true}
	assert.True(t, seen[start.Add(-time.Hour)])
	assert.Equal(t, start.Add(3*time.Second), m.Now())
}

func TestManualTickerTicksPerInterval(t *testing.T) {
	t.Parallel()
	m := NewManual(start)
	tk := m.NewTicker(time.Second)
	m.Add(time.Second)
	assert.Equal(t, start.Add(time.Second), <-tk.C())
	m.Add(3 * time.Second) // missed ticks: one, at the latest
	assert.Equal(t, start.Add(4*time.Second), <-tk.C())
	assert.Equal(t, start.Add(4*time.Second), m.Now())
	m.Add(1500 * time.Millisecond)
	assert.Equal(t, start.Add(5*time.Second), <-tk.C())
	tk.Stop()
	m.Add(time.Hour)
	select {
	case <-tk.C():
		t.Fatal("a stopped ticker ticked")
	default:
	}
	assert.Panics(t, func() { m.NewTicker(0) })
}

func TestManualArmedAndZeroDelay(t *testing.T) {
	t.Parallel()
	m := NewManual(start)
	armed := m.Armed()
	tm := m.NewTimer(0)
	<-armed
	assert.Equal(t, start, <-tm.C())
	m.Set(start.Add(-time.Hour))
	assert.Equal(t, start.Add(-time.Hour), m.Now())
}

func TestRealClock(t *testing.T) {
	t.Parallel()
	c := Or(nil)
	require.Equal(t, Real, c)
	tm := c.NewTimer(0)
	<-tm.C()
	done := make(chan struct{})
	c.AfterFunc(0, func() { close(done) })
	<-done
	tk := c.NewTicker(time.Millisecond)
	<-tk.C()
	tk.Stop()
	assert.False(t, c.Now().IsZero())
}
