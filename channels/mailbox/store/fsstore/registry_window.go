package fsstore

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"syscall"
)

// lookupWindow is how much of the registry a lookup reads around where an
// agent's card was the last time: a card is well under 1 KiB, and cards
// before it change little in length between rewrites.
const lookupWindow = 16 << 10

// lookup finds agentID's card in the file: in the window around where it
// was last time when the file was not read whole, else in the whole
// file (read now). v.mu is held.
func (v *registryView) lookup(path, agentID string) (json.RawMessage, entrySearch) {
	if off, ok := v.offsets[agentID]; ok && !v.read {
		if raw, at, ok := readWindow(path, v.info, agentID, off); ok {
			v.offsets[agentID] = at
			return raw, entryFound
		}
	}
	if v.readAll(path) != nil {
		return nil, entryUnknown
	}
	raw, at, found := findEntryAt(v.data, agentID)
	if found == entryFound {
		if v.offsets == nil {
			v.offsets = map[string]int64{}
		}
		v.offsets[agentID] = int64(at)
	}
	return raw, found
}

// readWindow reads the file's first bytes (to see how it is laid out) and
// lookupWindow bytes around off, and finds agentID's card there. The file
// must still be the one described by want.
func readWindow(path string, want os.FileInfo, agentID string, off int64) (json.RawMessage, int64, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, want) {
		return nil, 0, false
	}
	head := make([]byte, len(layoutPrefix))
	if _, err := f.ReadAt(head, 0); err != nil || string(head) != layoutPrefix {
		return nil, 0, false
	}
	start := max(off-lookupWindow/4, 0)
	buf := make([]byte, lookupWindow)
	n, err := f.ReadAt(buf, start)
	if err != nil && err != io.EOF {
		return nil, 0, false
	}
	key, ok := entryKey(agentID)
	if !ok {
		return nil, 0, false
	}
	at := bytes.Index(buf[:n], key)
	if at < 0 {
		return nil, 0, false
	}
	var raw json.RawMessage
	if json.NewDecoder(bytes.NewReader(buf[at+len(key):n])).Decode(&raw) != nil {
		return nil, 0, false // cut off by the window's end
	}
	return raw, start + int64(at), true
}
