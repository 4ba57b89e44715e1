package console

import (
	"fmt"
	"net/http"
	"sync"
)

// hub fans "something changed" out to the open pages. A page that has
// not taken the last news yet gets one pending notice, never a queue.
type hub struct {
	mu   sync.Mutex
	subs map[chan string]struct{}
	gen  uint64 // counts what was published
	// urgent is set by an action until a state is built: the operator
	// sees its result at once; acted is closed then (and made anew).
	urgent bool
	acted  chan struct{}
}

func newHub() *hub { return &hub{subs: map[chan string]struct{}{}, acted: make(chan struct{})} }

// publish tells every subscriber what changed ("messages", "agents",
// "action"), dropping it for one that still has a notice to take.
func (h *hub) publish(what string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gen++
	if what == "action" {
		h.urgent = true
		close(h.acted)
		h.acted = make(chan struct{})
	}
	for ch := range h.subs {
		select {
		case ch <- what:
		default:
		}
	}
}

// generation returns how many changes were published, whether an
// action is among those not yet built into a state, and a channel closed
// at the next action.
func (h *hub) generation() (uint64, bool, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gen, h.urgent, h.acted
}

// settle says a state is being built with the changes up to gen.
func (h *hub) settle(gen uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gen == gen {
		h.urgent = false
	}
}

func (h *hub) subscribe() chan string {
	ch := make(chan string, 1)
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch
}

func (h *hub) unsubscribe(ch chan string) {
	h.mu.Lock()
	delete(h.subs, ch)
	h.mu.Unlock()
}

// serveEvents is the server-sent event stream: "ready" once subscribed,
// then "change" with what changed, until the page goes away.
func (c *Console) serveEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "streaming is not supported")
		return
	}
	ch := c.hub.subscribe()
	defer c.hub.unsubscribe(ch)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	fmt.Fprint(w, "retry: 2000\nevent: ready\ndata: {}\n\n")
	flusher.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case what := <-ch:
			if _, err := fmt.Fprintf(w, "event: change\ndata: %q\n\n", what); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}
