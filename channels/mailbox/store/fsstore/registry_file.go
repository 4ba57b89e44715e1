package fsstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

const (
	// registryName is nanobot's registry file in the root.
	registryName = "_registry.json"
	// maxRegistryBytes caps the registry file; a card is well under 1 KiB.
	maxRegistryBytes = 64 << 20
)

// ErrRegistryCorrupt is wrapped by the errors of readers that find
// _registry.json unparsable (nanobot's own writer, which takes no lock and
// shares one temp file name between processes, can leave it torn) or an
// entry in it that is not a card. The next UpdateCard repairs the file,
// keeping a copy of the damaged one.
var ErrRegistryCorrupt = errors.New("agent registry is corrupt")

// errRegistryChanged tells UpdateCard that a writer that does not take the
// lock replaced the registry after it was read.
var errRegistryChanged = errors.New("registry replaced during update")

// registrySnapshot is _registry.json as read at one moment.
type registrySnapshot struct {
	data []byte      // the content; nil when there is no file
	info os.FileInfo // of the file read; nil when there is no file
}

// readRegistryFile reads path whole. It refuses a symlink or anything but a
// regular file, and a file over maxRegistryBytes. A missing file is an
// empty snapshot.
func readRegistryFile(path string) (registrySnapshot, error) {
	// O_NONBLOCK: a FIFO put in the file's place must not hang the reader.
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return registrySnapshot{}, nil
	}
	if err != nil {
		return registrySnapshot{}, registryOpenError(path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return registrySnapshot{}, fmt.Errorf("read registry: %w", err)
	}
	if !info.Mode().IsRegular() {
		return registrySnapshot{}, fmt.Errorf("read registry: %s is not a regular file (%s); remove it", path, info.Mode().Type())
	}
	if info.Size() > maxRegistryBytes {
		return registrySnapshot{}, fmt.Errorf("read registry %s: larger than %d bytes", path, maxRegistryBytes)
	}
	// One read of the size fstat gave, and more only if it grew meanwhile
	// (it never does: every writer renames a new file in).
	data := make([]byte, info.Size(), info.Size()+1)
	n, err := io.ReadFull(f, data)
	if err == nil {
		var more []byte
		more, err = readAllCapped(f, maxRegistryBytes-info.Size())
		data = append(data, more...)
	} else if errors.Is(err, io.ErrUnexpectedEOF) {
		data, err = data[:n], nil
	}
	if err != nil {
		return registrySnapshot{}, fmt.Errorf("read registry %s: %w", path, err)
	}
	return registrySnapshot{data: data, info: info}, nil
}

func registryOpenError(path string, err error) error {
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("registry %s is a symlink; refusing to follow it (remove it)", path)
	}
	return fmt.Errorf("read registry: %w", err)
}

// parseRegistry splits the registry into its entries, each kept as the
// exact JSON it was read as. Empty or blank data (no file yet) is an empty
// registry. Errors wrap ErrRegistryCorrupt.
func parseRegistry(data []byte) (map[string]json.RawMessage, error) {
	if isBlankJSON(data) {
		return map[string]json.RawMessage{}, nil
	}
	var entries map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&entries); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%w: invalid JSON at byte %d: %v", ErrRegistryCorrupt, se.Offset, err)
		}
		return nil, fmt.Errorf("%w: %v", ErrRegistryCorrupt, err)
	}
	if entries == nil {
		return nil, fmt.Errorf("%w: null instead of an object", ErrRegistryCorrupt)
	}
	if off := dec.InputOffset(); !isBlankJSON(data[off:]) {
		return nil, fmt.Errorf("%w: data after the JSON object at byte %d", ErrRegistryCorrupt, off)
	}
	return entries, nil
}

// salvageRegistry returns the entries of a corrupt registry that come
// before the damage: a file torn by two unlocked writers usually holds one
// whole object followed by the tail of a longer one, and all of that
// object is recovered.
func salvageRegistry(data []byte) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return out
	}
	for dec.More() {
		tok, err := dec.Token()
		key, ok := tok.(string)
		if err != nil || !ok {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		out[key] = v
	}
	return out
}

// isBlankJSON reports whether b holds only JSON white space.
func isBlankJSON(b []byte) bool {
	return len(bytes.Trim(b, " \t\r\n")) == 0
}

// encodeRegistry writes the registry as nanobot does (an object indented
// by two spaces, non-ASCII text as is), keys sorted: what an
// encoding/json Encoder with SetIndent("", "  ") and SetEscapeHTML(false)
// writes for the map, byte for byte, without its reflection and without
// compacting each entry before indenting it, which made the encoder most
// of the cost of rewriting a registry of a thousand cards. Entries that
// are not valid JSON are an error.
func encodeRegistry(entries map[string]json.RawMessage) ([]byte, error) {
	keys := slices.Sorted(maps.Keys(entries))
	size := 4
	for k, v := range entries {
		size += len(k) + len(v) + len(v)/8 + 8
	}
	var buf bytes.Buffer
	buf.Grow(size)
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n  ")
		if err := writeKey(&buf, k); err != nil {
			return nil, fmt.Errorf("encode registry: %w", err)
		}
		buf.WriteString(": ")
		if err := json.Indent(&buf, bytes.Trim(entries[k], " \t\r\n"), "  ", "  "); err != nil {
			return nil, fmt.Errorf("encode registry: entry %q: %w", k, err)
		}
	}
	if len(keys) > 0 {
		buf.WriteByte('\n')
	}
	buf.WriteString("}\n")
	return buf.Bytes(), nil
}

// writeKey writes k as a JSON string, as encoding/json does without
// escaping HTML: plain printable ASCII as it is, anything else through the
// encoder.
func writeKey(buf *bytes.Buffer, k string) error {
	plain := true
	for i := 0; i < len(k) && plain; i++ {
		c := k[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\'
	}
	if plain {
		buf.WriteByte('"')
		buf.WriteString(k)
		buf.WriteByte('"')
		return nil
	}
	var q bytes.Buffer
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(k); err != nil {
		return err
	}
	buf.Write(bytes.TrimSuffix(q.Bytes(), []byte("\n")))
	return nil
}

// writeRegistryTemp writes data to a new, uniquely named file (created
// exclusively, mode 0600) in dir and returns its path.
func writeRegistryTemp(dir string, data []byte, sync bool) (string, error) {
	f, err := os.CreateTemp(dir, "."+registryName+".*.tmp")
	if err != nil {
		return "", fmt.Errorf("write registry: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("write registry: %w", err)
	}
	return tmp, nil
}

// registryUnchanged reports whether path still is the file described by
// before (nil: no file). Writers that take no lock (nanobot) replace the
// file by renaming a new one over it, which gives it a new identity.
func registryUnchanged(path string, before os.FileInfo) (bool, error) {
	now, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return before == nil, nil
	case err != nil:
		return false, fmt.Errorf("write registry: %w", err)
	case now.Mode()&fs.ModeSymlink != 0:
		return false, fmt.Errorf("registry %s is a symlink; refusing to replace it (remove it)", path)
	case !now.Mode().IsRegular():
		return false, fmt.Errorf("registry %s is not a regular file (%s); remove it", path, now.Mode().Type())
	case before == nil:
		return false, nil
	}
	return os.SameFile(before, now) && before.Size() == now.Size() &&
		before.ModTime().Equal(now.ModTime()), nil
}

// backupCorruptRegistry keeps data, a registry that could not be parsed, as
// _registry.json.corrupt-<unix> (with a counter if that exists), removes
// the copies beyond the KeepCorruptRegistryCopies newest and returns the
// copy's path.
func backupCorruptRegistry(root string, data []byte, now time.Time, sync bool) (string, error) {
	base := filepath.Join(root, fmt.Sprintf("%s.corrupt-%d", registryName, now.Unix()))
	for i := 1; i <= 100; i++ {
		path := base
		if i > 1 {
			path = fmt.Sprintf("%s-%d", base, i)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil && sync {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return "", err
		}
		_, _ = PruneCorruptRegistryCopies(root, KeepCorruptRegistryCopies) // best effort: doctor reports the rest
		return path, nil
	}
	return "", fmt.Errorf("too many copies named %s-*; remove old ones", base)
}

// lookupWindow is how much of the registry a lookup reads around where an
// agent's card was the last time: a card is well under 1 KiB, and cards
// before it change little in length between rewrites.
const lookupWindow = 16 << 10

// lookup finds agentID's card in the file: in the window around where it
// was last time, or by streaming the file (searchRegistry), when the file
// was not read whole; else in the whole file (read now). v.mu is held.
func (v *registryView) lookup(path, agentID string) (json.RawMessage, entrySearch) {
	if !v.read {
		if off, ok := v.offsets[agentID]; ok {
			if raw, at, ok := readWindow(path, v.info, agentID, off); ok {
				v.offsets[agentID] = at
				return raw, entryFound
			}
		} else if raw, at, fi, found, err := searchRegistry(path, agentID); err == nil && found != entryUnknown && sameRegistry(fi, v.info) {
			if found == entryFound {
				v.remember(agentID, at)
			}
			return raw, found
		}
	}
	if v.readAll(path) != nil {
		return nil, entryUnknown
	}
	raw, at, found := findEntryAt(v.data, agentID)
	if found == entryFound {
		v.remember(agentID, int64(at))
	}
	return raw, found
}

// remember notes where agentID's card began in the file. v.mu is held.
func (v *registryView) remember(agentID string, at int64) {
	if v.offsets == nil {
		v.offsets = map[string]int64{}
	}
	v.offsets[agentID] = at
}

// sameRegistry reports whether a and b describe the same registry file,
// unchanged.
func sameRegistry(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
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
