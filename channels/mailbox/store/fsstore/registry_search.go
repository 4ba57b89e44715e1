package fsstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// searchChunk is how much of the registry searchRegistry reads at a time,
// and the most of the file after a key it decodes a card from.
const searchChunk = 64 << 10

// searchBufs holds searchRegistry's read buffers.
var searchBufs = sync.Pool{New: func() any { b := make([]byte, searchChunk); return &b }}

// searchRegistry finds agentID's entry in the registry file at path, laid
// out as switchboard and nanobot write it (see findEntryAt), reading the
// file a chunk at a time into a reused buffer instead of whole into a new
// one: an agent that registers or goes offline in a registry of a
// thousand cards looks for its own without allocating and faulting in
// the whole file. It reports what findEntryAt would on the whole file:
// entryFound with the entry and where its line begins, entryAbsent, or
// entryUnknown (not laid out so, the key twice, an entry that does not
// decode, no file: read the file whole then). info describes the file
// read (nil without one). Errors are those of readRegistryFile.
func searchRegistry(path, agentID string) (raw json.RawMessage, at int64, info os.FileInfo, found entrySearch, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil, entryUnknown, nil
	}
	if err != nil {
		return nil, 0, nil, entryUnknown, registryOpenError(path, err)
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, 0, nil, entryUnknown, fmt.Errorf("read registry: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, 0, nil, entryUnknown, fmt.Errorf("read registry: %s is not a regular file (%s); remove it", path, info.Mode().Type())
	}
	if info.Size() > maxRegistryBytes {
		return nil, 0, nil, entryUnknown, fmt.Errorf("read registry %s: larger than %d bytes", path, maxRegistryBytes)
	}
	key, ok := entryKey(agentID)
	if !ok {
		return nil, 0, info, entryUnknown, nil
	}
	bp := searchBufs.Get().(*[]byte)
	defer searchBufs.Put(bp)
	at, count, err := findKey(f, key, *bp)
	switch {
	case err != nil:
		return nil, 0, info, entryUnknown, fmt.Errorf("read registry %s: %w", path, err)
	case count < 0 || count > 1:
		return nil, 0, info, entryUnknown, nil
	case count == 0:
		return nil, 0, info, entryAbsent, nil
	}
	n, err := f.ReadAt(*bp, at+int64(len(key)))
	if err != nil && err != io.EOF {
		return nil, 0, info, entryUnknown, fmt.Errorf("read registry %s: %w", path, err)
	}
	if json.NewDecoder(bytes.NewReader((*bp)[:n])).Decode(&raw) != nil {
		return nil, 0, info, entryUnknown, nil // longer than a chunk, or not JSON: the caller parses
	}
	return raw, at, info, entryFound, nil
}

// findKey streams r through buf and returns where key first occurs and
// how many times it does (stopping at two), or count -1 when r does not
// begin as a registry laid out with two spaces of indentation does.
func findKey(r io.Reader, key, buf []byte) (at int64, count int, err error) {
	keep := len(key) - 1 // a key cut by a chunk's end is found in the next
	var off int64        // where buf[0] is in the file
	filled, first := 0, true
	for {
		n, rerr := io.ReadFull(r, buf[filled:])
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return 0, 0, rerr
		}
		end := filled + n
		if first {
			if !bytes.HasPrefix(buf[:end], []byte(layoutPrefix)) {
				return 0, -1, nil
			}
			first = false
		}
		for from := 0; ; {
			i := bytes.Index(buf[from:end], key)
			if i < 0 {
				break
			}
			if count++; count == 1 {
				at = off + int64(from+i)
			} else {
				return at, count, nil
			}
			from += i + 1
		}
		if rerr != nil { // the end of the file
			return at, count, nil
		}
		if end <= keep {
			return 0, 0, errors.New("search buffer shorter than the key")
		}
		copy(buf, buf[end-keep:end])
		off += int64(end - keep)
		filled = keep
	}
}
