package host

// Running reports whether the host has started its channels and its agent
// loop, and neither stopped nor saw the loop end.
func (h *Host) Running() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.loopDone == nil || h.stopped {
		return false
	}
	select {
	case <-h.loopDone:
		return false
	default:
		return true
	}
}
