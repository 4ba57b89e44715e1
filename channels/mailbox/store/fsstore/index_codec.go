package fsstore

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// indexMagic starts an index file; it names the format's version.
//
// The format: the magic line, then two hints for the reader (how many
// records follow, and the length of their file names end to end, as
// uvarints: what to make room for, never trusted for more), then one
// frame per file known (the length
// of its record as a uvarint, the record, and the record's CRC-32C, four
// bytes little-endian), then a frame of length zero that ends the file.
// A record is a byte of flags, then the file name and the summary's
// strings (each a uvarint length and the bytes), then its times (seconds
// as a varint, nanoseconds as a uvarint). Each record carries its own
// checksum, so the file is read as a stream and every record is checked
// before it is used; a file without its end frame was torn.
const indexMagic = "switchboard-index-2\n"

// Flags of a record.
const (
	flagExpectsReply = 1 << iota
	flagTask
	flagTimestamp
	flagReplyBy
	flagDeadline
)

// maxIndexRecord bounds the length a frame may claim: a larger one is
// damage, not a record.
const maxIndexRecord = 1 << 20

// crcTable is made on first use, not at start.
var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// errBadIndex is wrapped by every decoding error.
var errBadIndex = errors.New("bad index file")

// appendIndexRecord appends the frame of the record of file name and
// its summary s to b.
func appendIndexRecord(b []byte, name string, s *driver.Summary) []byte {
	var rec [256]byte
	r := rec[:0]
	str := func(v string) {
		r = binary.AppendUvarint(r, uint64(len(v)))
		r = append(r, v...)
	}
	tm := func(t time.Time) {
		r = binary.AppendVarint(r, t.Unix())
		r = binary.AppendUvarint(r, uint64(t.Nanosecond()))
	}
	flags := byte(0)
	if s.ExpectsReply {
		flags |= flagExpectsReply
	}
	if s.Task != nil {
		flags |= flagTask
		if !s.Task.Deadline.IsZero() {
			flags |= flagDeadline
		}
	}
	if !s.Timestamp.IsZero() {
		flags |= flagTimestamp
	}
	if !s.ReplyBy.IsZero() {
		flags |= flagReplyBy
	}
	r = append(r, flags)
	for _, v := range [...]string{name, s.ID, s.From, s.To, string(s.Type), s.ReplyTo, s.ThreadID, s.TaskID, s.Subject} {
		str(v)
	}
	if flags&flagTimestamp != 0 {
		tm(s.Timestamp)
	}
	if flags&flagReplyBy != 0 {
		tm(s.ReplyBy)
	}
	if s.Task != nil {
		str(s.Task.ID)
		str(string(s.Task.State))
		if flags&flagDeadline != 0 {
			tm(s.Task.Deadline)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(r)))
	b = append(b, r...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(r, crcTable()))
}

// indexReader reads an index file as a stream, one checked record at a
// time.
type indexReader struct {
	// records and nameBytes are the hints at the start of the file.
	records, nameBytes uint64
	r                  *bufio.Reader
	buf                []byte            // the current frame
	interned           map[string]string // agent ids, types and task states, kept once
}

// newIndexReader checks the magic line at the start of r.
func newIndexReader(r io.Reader) (*indexReader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head := make([]byte, len(indexMagic))
	if _, err := io.ReadFull(br, head); err != nil || string(head) != indexMagic {
		return nil, fmt.Errorf("%w: not an index of this version", errBadIndex)
	}
	records, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, fmt.Errorf("%w: torn header", errBadIndex)
	}
	nameBytes, err := binary.ReadUvarint(br)
	if err != nil {
		return nil, fmt.Errorf("%w: torn header", errBadIndex)
	}
	return &indexReader{records: records, nameBytes: nameBytes, r: br, interned: map[string]string{}}, nil
}

// next returns the next record: the name of its file and its summary.
// It returns io.EOF at the end frame, and an error wrapping errBadIndex
// for a torn or damaged file.
func (x *indexReader) next() (string, driver.Summary, error) {
	_, rec, err := x.frame()
	if err != nil {
		return "", driver.Summary{}, err
	}
	return x.decode(rec)
}

// frame reads the next frame and checks it: the whole frame, and the
// record in it (both valid until the next call). It returns io.EOF at
// the end frame.
func (x *indexReader) frame() (frame, rec []byte, err error) {
	n, err := binary.ReadUvarint(x.r)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: torn (no end frame)", errBadIndex)
	}
	if n == 0 {
		return nil, nil, io.EOF
	}
	if n > maxIndexRecord {
		return nil, nil, fmt.Errorf("%w: record of %d bytes", errBadIndex, n)
	}
	head := 1
	for v := n; v >= 0x80; v >>= 7 {
		head++
	}
	size := head + int(n) + 4
	if cap(x.buf) < size {
		x.buf = make([]byte, size, max(size, 2*cap(x.buf)))
	}
	x.buf = x.buf[:size]
	binary.PutUvarint(x.buf, n)
	if _, err := io.ReadFull(x.r, x.buf[head:]); err != nil {
		return nil, nil, fmt.Errorf("%w: torn record", errBadIndex)
	}
	rec = x.buf[head : head+int(n)]
	if crc32.Checksum(rec, crcTable()) != binary.LittleEndian.Uint32(x.buf[head+int(n):]) {
		return nil, nil, fmt.Errorf("%w: checksum mismatch (torn or damaged)", errBadIndex)
	}
	return x.buf, rec, nil
}

// decode reads one record. Its strings are parts of one copy of it,
// except those kept once.
func (x *indexReader) decode(rec []byte) (string, driver.Summary, error) {
	d := recordDecoder{buf: string(rec), interned: x.interned}
	flags := d.byte()
	name := d.str()
	s := driver.Summary{ID: d.str(), From: d.intern(), To: d.intern(), Type: envelope.Type(d.intern()),
		ReplyTo: d.str(), ThreadID: d.str(), TaskID: d.str(), Subject: d.str(), ExpectsReply: flags&flagExpectsReply != 0}
	if flags&flagTimestamp != 0 {
		s.Timestamp = d.time()
	}
	if flags&flagReplyBy != 0 {
		s.ReplyBy = d.time()
	}
	if flags&flagTask != 0 {
		s.Task = &driver.TaskSummary{ID: d.str(), State: envelope.TaskState(d.intern())}
		if flags&flagDeadline != 0 {
			s.Task.Deadline = d.time()
		}
	}
	if d.err == nil && len(d.buf) != 0 {
		d.err = fmt.Errorf("%w: %d bytes after a record", errBadIndex, len(d.buf))
	}
	return name, s, d.err
}

// recordDecoder reads the fields of a record; the first error sticks.
type recordDecoder struct {
	buf      string
	err      error
	interned map[string]string
}

func (d *recordDecoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: truncated %s", errBadIndex, what)
	}
	d.buf = ""
}

func (d *recordDecoder) byte() byte {
	if len(d.buf) == 0 {
		d.fail("record")
		return 0
	}
	c := d.buf[0]
	d.buf = d.buf[1:]
	return c
}

func (d *recordDecoder) uvarint() uint64 {
	var v uint64
	for i := 0; i < len(d.buf) && i < binary.MaxVarintLen64; i++ {
		c := d.buf[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			d.buf = d.buf[i+1:]
			return v
		}
	}
	d.fail("number")
	return 0
}

func (d *recordDecoder) varint() int64 {
	u := d.uvarint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	return v
}

// str returns the next string, a part of buf.
func (d *recordDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.buf)) {
		d.fail("string")
		return ""
	}
	s := d.buf[:n]
	d.buf = d.buf[n:]
	return s
}

// intern returns a string that repeats across records, kept once (a
// copy, so that it does not hold the record it came from).
func (d *recordDecoder) intern() string {
	s := d.str()
	if v, ok := d.interned[s]; ok {
		return v
	}
	if len(d.interned) >= maxInterned {
		return s
	}
	s = strings.Clone(s)
	d.interned[s] = s
	return s
}

// maxInterned bounds the strings an index reader keeps once: agent
// ids, types and states are few, but a damaged or hostile file could
// name many.
const maxInterned = 4096

func (d *recordDecoder) time() time.Time {
	sec := d.varint()
	nsec := d.uvarint()
	if nsec >= 1e9 {
		d.fail("time")
	}
	return time.Unix(sec, int64(nsec)).UTC()
}
