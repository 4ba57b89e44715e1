package slack

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
)

// postedTTL is how long the channel remembers the parts of an answer it
// posted before a later part failed: longer than the Manager retries.
const postedTTL = 10 * time.Minute

// postedLog remembers, for answers whose send failed after some of their
// parts were posted, how many were: Slack has no idempotency key for
// chat.postMessage, so when the Manager sends the answer again, the
// channel goes on from the part that failed instead of posting the
// others twice. It is in memory: after a restart an answer sent again is
// posted whole.
type postedLog struct {
	mu sync.Mutex
	m  map[string]postedEntry
}

type postedEntry struct {
	parts int       // parts posted
	at    time.Time // when the send failed
}

// resume returns how many parts of the answer with key were posted by a
// send that failed lately (0: none).
func (p *postedLog) resume(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.m[key]
	if !ok || time.Since(e.at) > postedTTL {
		return 0
	}
	return e.parts
}

// record notes that the first n parts of the answer with key were posted
// and the next one failed.
func (p *postedLog) record(key string, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]postedEntry{}
	}
	now := time.Now()
	for k, e := range p.m {
		if now.Sub(e.at) > postedTTL {
			delete(p.m, k)
		}
	}
	if n > 0 {
		p.m[key] = postedEntry{parts: n, at: now}
	}
}

// forget drops what was noted of the answer with key: it was posted
// whole.
func (p *postedLog) forget(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, key)
}

// postedKey names an answer: the same for the same answer sent again.
func postedKey(msg bus.OutboundMessage) string {
	h := sha256.New()
	md, _ := json.Marshal(msg.Metadata) // map keys are sorted
	media, _ := json.Marshal(msg.Media)
	for _, s := range []string{msg.ChatID, msg.Content, string(media), string(md)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
