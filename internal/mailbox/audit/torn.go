package audit

import "fmt"

// closeTornLine returns line with a newline in front when the log file
// does not end in one: a write cut short (a full disk, a writer killed
// mid-line) left a partial last line. The newline ends that line, which
// readers then skip as unreadable, instead of gluing the new entry to it
// and losing both. The last byte is read only when another writer (or a
// failed write) may have changed the file since this Writer's last whole
// line. The caller holds the flock and has called current.
func (w *Writer) closeTornLine(line []byte) ([]byte, error) {
	if w.size == 0 || w.size == w.end {
		return line, nil
	}
	var last [1]byte
	if _, err := w.f.ReadAt(last[:], w.size-1); err != nil {
		return nil, fmt.Errorf("audit log %s: read the last byte: %w", w.path, err)
	}
	if last[0] == '\n' {
		return line, nil
	}
	return append([]byte{'\n'}, line...), nil
}
