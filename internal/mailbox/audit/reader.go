package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// maxLine is the longest line Read decodes; longer ones are skipped.
const maxLine = 1 << 20

// Filter selects entries. Zero fields select everything.
type Filter struct {
	// Agent keeps the entries about that agent: its inbox, or sent by it.
	Agent string
	// Kinds keeps the entries of these kinds.
	Kinds []store.EventKind
	// Since and Until keep the entries at or after Since and before Until.
	Since, Until time.Time
	// MessageID, ThreadID and TaskID keep the entries of one message,
	// thread or task.
	MessageID, ThreadID, TaskID string
}

// Match reports whether e passes the filter.
func (f Filter) Match(e Entry) bool {
	switch {
	case f.Agent != "" && e.Agent != f.Agent && e.From != f.Agent,
		len(f.Kinds) > 0 && !slices.Contains(f.Kinds, e.Kind),
		!f.Since.IsZero() && e.Time.Before(f.Since),
		!f.Until.IsZero() && !e.Time.Before(f.Until),
		f.MessageID != "" && e.MessageID != f.MessageID,
		f.ThreadID != "" && e.ThreadID != f.ThreadID,
		f.TaskID != "" && e.TaskID != f.TaskID:
		return false
	}
	return true
}

// Stats counts what Read saw.
type Stats struct {
	Lines int // lines read
	Bad   int // lines skipped because they could not be decoded
}

// Read calls fn with each entry of the log in dir that matches f, oldest
// first (the rotated files from the oldest, then the current file), until
// fn returns false or ctx ends. A missing log has no entries. Files are
// opened before any is read, so a rotation meanwhile loses nothing (it may
// show a few lines twice).
func Read(ctx context.Context, dir string, f Filter, fn func(Entry) bool) (Stats, error) {
	var st Stats
	files, err := openAll(dir)
	defer func() {
		for _, fh := range files {
			fh.Close()
		}
	}()
	if err != nil {
		return st, err
	}
	for _, fh := range files {
		more, err := readFile(ctx, fh, f, fn, &st)
		if err != nil {
			return st, fmt.Errorf("read audit log %s: %w", fh.Name(), err)
		}
		if !more {
			break
		}
	}
	return st, nil
}

// Files returns the log's files in dir, oldest first.
func Files(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type numbered struct {
		n    int
		path string
	}
	var found []numbered
	for _, e := range ents {
		name := e.Name()
		if name == FileName {
			found = append(found, numbered{0, filepath.Join(dir, name)})
			continue
		}
		if rest, ok := strings.CutPrefix(name, FileName+"."); ok {
			if n, err := strconv.Atoi(rest); err == nil && n > 0 {
				found = append(found, numbered{n, filepath.Join(dir, name)})
			}
		}
	}
	slices.SortFunc(found, func(a, b numbered) int { return b.n - a.n })
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.path
	}
	return out, nil
}

func openAll(dir string) ([]*os.File, error) {
	paths, err := Files(dir)
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	var files []*os.File
	for _, p := range paths {
		fh, err := os.OpenFile(p, os.O_RDONLY|noFollow|syscall.O_NONBLOCK, 0)
		if errors.Is(err, fs.ErrNotExist) {
			continue // rotated away meanwhile
		}
		if err != nil {
			return files, fmt.Errorf("read audit log: %w", err)
		}
		if fi, err := fh.Stat(); err != nil || !fi.Mode().IsRegular() {
			fh.Close()
			continue
		}
		files = append(files, fh)
	}
	return files, nil
}

func readFile(ctx context.Context, fh *os.File, f Filter, fn func(Entry) bool, st *Stats) (bool, error) {
	r := bufio.NewReaderSize(fh, 64<<10)
	for {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		line, tooLong, err := readLine(r)
		if len(line) > 0 || tooLong {
			st.Lines++
			var e Entry
			if tooLong || json.Unmarshal(line, &e) != nil || e.Kind == "" {
				st.Bad++
			} else if f.Match(e) && !fn(e) {
				return false, nil
			}
		}
		if errors.Is(err, errEOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}

var errEOF = errors.New("end of file")

// readLine returns the next line without its newline; a line over maxLine
// is consumed and reported as tooLong.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > maxLine {
				tooLong, line = true, nil
			}
		}
		switch {
		case err == nil:
			return trimNewline(line), tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return trimNewline(line), tooLong, errEOF
		default:
			return nil, false, err
		}
	}
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}
