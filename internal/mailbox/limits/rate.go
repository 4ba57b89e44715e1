package limits

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxBuckets bounds the buckets one set keeps: past it, the buckets that
// are full again (their key was quiet long enough) are dropped, which
// changes nothing, as a new bucket starts full.
const maxBuckets = 1024

// buckets is one token bucket of rate r per key (a recipient, a sender).
type buckets struct {
	r  Rate
	mu sync.Mutex
	m  map[string]*rate.Limiter
}

func newBuckets(r Rate) *buckets { return &buckets{r: r, m: map[string]*rate.Limiter{}} }

// reserve takes a token for key at now; when none is left it takes
// nothing and returns how long until one is. A nil reservation means no
// limit.
func (b *buckets) reserve(key string, now time.Time) (*rate.Reservation, time.Duration) {
	if b.r.Off() {
		return nil, 0
	}
	b.mu.Lock()
	lim, ok := b.m[key]
	if !ok {
		if len(b.m) >= maxBuckets {
			b.dropFullLocked(now)
		}
		lim = rate.NewLimiter(b.r.Limit(), b.r.Burst)
		b.m[key] = lim
	}
	b.mu.Unlock()
	res := lim.ReserveN(now, 1)
	if wait := res.DelayFrom(now); wait > 0 {
		res.CancelAt(now)
		return nil, wait
	}
	return res, 0
}

func (b *buckets) dropFullLocked(now time.Time) {
	for k, lim := range b.m {
		if lim.TokensAt(now) >= float64(b.r.Burst) {
			delete(b.m, k)
		}
	}
}
