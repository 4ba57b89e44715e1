package platformfake

import "sync"

// Failures queues, by call name, the answers of type F a fake gives
// instead of the real ones, one per call, in order. The zero Failures is
// ready.
type Failures[F any] struct {
	mu     sync.Mutex
	queued map[string][]F
}

// Add queues f for the next calls of call.
func (q *Failures[F]) Add(call string, f ...F) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.queued == nil {
		q.queued = map[string][]F{}
	}
	q.queued[call] = append(q.queued[call], f...)
}

// Take returns the next answer queued for call, and whether there was one.
func (q *Failures[F]) Take(call string) (F, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	queue := q.queued[call]
	if len(queue) == 0 {
		var none F
		return none, false
	}
	q.queued[call] = queue[1:]
	return queue[0], true
}
