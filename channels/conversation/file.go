package conversation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// maxLine caps one line of an answer file.
const maxLine = 8 << 20

// answerFile is the append-only file of a Book's answers, one JSON line
// each, rewritten with what the Book keeps when it has grown to twice
// that.
type answerFile struct {
	path  string
	keep  int
	f     *os.File
	lines int // lines in the file
}

// openAnswerFile reads the answers kept at path (the latest keep of each
// chat that got one within MaxAge of now), rewrites the file with them
// alone and opens it for appending. A torn last line (a crash while
// writing) is dropped: its Record had not returned.
func openAnswerFile(path string, keep int, now time.Time) (*answerFile, map[string][]Answer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("answers %s: %w", path, err)
	}
	kept := map[string][]Answer{}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("answers %s: %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		var a Answer
		if json.Unmarshal(sc.Bytes(), &a) != nil || a.Seq <= 0 {
			continue // torn or foreign
		}
		as := kept[a.Chat]
		if len(as) > 0 && as[len(as)-1].Seq >= a.Seq {
			continue
		}
		if as = append(as, a); len(as) > keep {
			as = as[1:]
		}
		kept[a.Chat] = as
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("answers %s: %w", path, err)
	}
	for id, as := range kept {
		if now.Sub(as[len(as)-1].Time) > MaxAge {
			delete(kept, id)
		}
	}
	af := &answerFile{path: path, keep: keep}
	if err := af.rewrite(kept); err != nil {
		return nil, nil, err
	}
	return af, kept, nil
}

// append writes a and syncs the file; past twice what the Book keeps
// (chats), it rewrites the file with that (a among it).
func (af *answerFile) append(a Answer, chats map[string]*chat) error {
	line, err := json.Marshal(a)
	if err != nil {
		return fmt.Errorf("answers %s: %w", af.path, err)
	}
	if len(line) >= maxLine {
		return fmt.Errorf("answers %s: answer of %d bytes is over the limit of %d", af.path, len(line), maxLine)
	}
	if _, err := af.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("answers %s: %w", af.path, err)
	}
	if err := af.f.Sync(); err != nil {
		return fmt.Errorf("answers %s: %w", af.path, err)
	}
	af.lines++
	held := 1
	for _, c := range chats {
		held += len(c.answers)
	}
	if af.lines <= 2*held+1024 {
		return nil
	}
	kept := map[string][]Answer{}
	for id, c := range chats {
		if len(c.answers) > 0 {
			kept[id] = c.answers
		}
	}
	as := kept[a.Chat]
	kept[a.Chat] = append(as[max(0, len(as)+1-af.keep):len(as):len(as)], a)
	return af.rewrite(kept)
}

// rewrite replaces the file, atomically, with the answers of kept, and
// opens it for appending.
func (af *answerFile) rewrite(kept map[string][]Answer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	n := 0
	for _, as := range kept {
		for _, a := range as {
			if err := enc.Encode(a); err != nil {
				return fmt.Errorf("answers %s: %w", af.path, err)
			}
			n++
		}
	}
	tmp := af.path + ".tmp"
	if err := writeSynced(tmp, buf.Bytes()); err != nil {
		return fmt.Errorf("answers %s: %w", af.path, err)
	}
	if err := os.Rename(tmp, af.path); err != nil {
		return fmt.Errorf("answers %s: %w", af.path, err)
	}
	f, err := os.OpenFile(af.path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("answers %s: %w", af.path, err)
	}
	if af.f != nil {
		_ = af.f.Close() // the file it wrote was replaced whole
	}
	af.f, af.lines = f, n
	return nil
}

func (af *answerFile) close() error {
	if af.f == nil {
		return nil
	}
	err := af.f.Close()
	af.f = nil
	return err
}

// writeSynced writes data to a new file at path, mode 0600, and syncs it.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
