package fsstore

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// DefaultMaxDeliver is Options.MaxDeliver's default, NATS's too.
const DefaultMaxDeliver = 5

// attemptsName is the file in <agent>/state/ that counts how often the
// messages an earlier owner left in claimed/ were handed out. Its leading
// dot keeps it apart from every state key (see store.CheckStateKey).
const attemptsName = ".delivery-attempts.json"

// countAttempt records one more hand-out of name, a message an earlier
// owner of the inbox left in claimed/ (it crashed, or stopped, before
// acknowledging it), and returns why the message must be set aside
// instead ("" to hand it out). The earlier hand-out is counted as the
// first; the count is written to disk before the message is handed out
// again, so a message that crashes every receiver is set aside after
// MaxDeliver hand-outs however often the receiver restarts. A message
// handed out once and acknowledged costs no write: only recoveries count.
func (in *Inbox) countAttempt(name string) string {
	max := in.s.opts.MaxDeliver
	if max < 0 {
		return ""
	}
	path := filepath.Join(in.dir, stateDir, attemptsName)
	counts := in.loadAttempts(path)
	n := counts[name] + 1
	if n < 2 {
		n = 2
	}
	reason := ""
	if n > max {
		delete(counts, name)
		reason = store.MaxDeliverReason(n-1, max)
	} else {
		counts[name] = n
	}
	for other := range counts { // forget messages acknowledged or set aside since
		if _, err := os.Lstat(filepath.Join(in.dir, claimedDir, other)); errors.Is(err, fs.ErrNotExist) {
			delete(counts, other)
		}
	}
	if err := in.saveAttempts(path, counts); err != nil {
		in.log.Warn("delivery attempt not recorded", "file", name, "err", err)
	}
	return reason
}

// loadAttempts reads the counts; a missing file is none, an unreadable one
// is logged and counting starts again.
func (in *Inbox) loadAttempts(path string) map[string]int {
	counts := map[string]int{}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return counts
	}
	if err == nil {
		var data []byte
		data, err = readAllCapped(f, 1<<20)
		f.Close()
		if err == nil {
			err = json.Unmarshal(data, &counts)
		}
	}
	if err != nil {
		in.log.Warn("delivery attempts record unreadable; counting from scratch", "err", err)
		return map[string]int{}
	}
	return counts
}

func (in *Inbox) saveAttempts(path string, counts map[string]int) error {
	if len(counts) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, data, !in.s.opts.NoSync)
}

// forget undoes take's count of an own message id in flight, for a
// message set aside instead of handed out.
func (in *Inbox) forget(id string, own bool) {
	if !own {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.inflight[id]--; in.inflight[id] <= 0 {
		delete(in.inflight, id)
	}
}
