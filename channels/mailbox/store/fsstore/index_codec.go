package fsstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// indexMagic starts an index file; it names the format's version.
const indexMagic = "switchboard-index-1\n"

// Flags of a record.
const (
	flagExpectsReply = 1 << iota
	flagTask
	flagTimestamp
	flagReplyBy
	flagDeadline
)

var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// errBadIndex is wrapped by every decoding error.
var errBadIndex = errors.New("bad index file")

// encodeIndex returns the file holding the entries of x found again or
// added, in listing order: the magic line, the count, one record per entry (strings and
// times as varints), and the CRC-32C of all that.
func encodeIndex(x *summaryIndex) []byte {
	n := len(x.order)
	b := make([]byte, 0, 64+n*200)
	b = append(b, indexMagic...)
	b = binary.AppendUvarint(b, uint64(n))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	tm := func(t time.Time) {
		b = binary.AppendVarint(b, t.Unix())
		b = binary.AppendUvarint(b, uint64(t.Nanosecond()))
	}
	for _, i := range x.order {
		name, s := x.names[i], &x.sums[i]
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
		b = append(b, flags)
		for _, v := range []string{name, s.ID, s.From, s.To, string(s.Type), s.ReplyTo, s.ThreadID, s.TaskID} {
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
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable()))
}

// decodeIndex reads a file encodeIndex wrote: the names of the files it
// knows and their summaries. The strings are parts of one copy of the
// file; agent ids, types and task states, which repeat from record to
// record, are kept once.
func decodeIndex(data []byte) ([]string, []store.Summary, error) {
	if len(data) < len(indexMagic)+4 || string(data[:len(indexMagic)]) != indexMagic {
		return nil, nil, fmt.Errorf("%w: not an index of this version", errBadIndex)
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, crcTable()) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, nil, fmt.Errorf("%w: checksum mismatch (torn or damaged)", errBadIndex)
	}
	d := indexDecoder{buf: string(body[len(indexMagic):]), interned: map[string]string{}}
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.buf)) {
		return nil, nil, fmt.Errorf("%w: bad count", errBadIndex)
	}
	names, sums := make([]string, 0, n), make([]store.Summary, 0, n)
	for range n {
		flags := d.byte()
		name := d.str()
		s := store.Summary{ID: d.str(), From: d.intern(), To: d.intern(), Type: envelope.Type(d.intern()),
			ReplyTo: d.str(), ThreadID: d.str(), TaskID: d.str(), ExpectsReply: flags&flagExpectsReply != 0}
		if flags&flagTimestamp != 0 {
			s.Timestamp = d.time()
		}
		if flags&flagReplyBy != 0 {
			s.ReplyBy = d.time()
		}
		if flags&flagTask != 0 {
			s.Task = &store.TaskSummary{ID: d.str(), State: envelope.TaskState(d.intern())}
			if flags&flagDeadline != 0 {
				s.Task.Deadline = d.time()
			}
		}
		if d.err != nil {
			return nil, nil, d.err
		}
		names, sums = append(names, name), append(sums, s)
	}
	if len(d.buf) != 0 {
		return nil, nil, fmt.Errorf("%w: %d bytes after the last record", errBadIndex, len(d.buf))
	}
	return names, sums, nil
}

// indexDecoder reads the fields of records; the first error sticks.
type indexDecoder struct {
	buf      string
	err      error
	interned map[string]string
}

func (d *indexDecoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: truncated %s", errBadIndex, what)
	}
	d.buf = ""
}

func (d *indexDecoder) byte() byte {
	if len(d.buf) == 0 {
		d.fail("record")
		return 0
	}
	c := d.buf[0]
	d.buf = d.buf[1:]
	return c
}

func (d *indexDecoder) uvarint() uint64 {
	v, n := binary.Uvarint([]byte(d.buf[:min(len(d.buf), binary.MaxVarintLen64)]))
	if n <= 0 {
		d.fail("number")
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *indexDecoder) varint() int64 {
	v, n := binary.Varint([]byte(d.buf[:min(len(d.buf), binary.MaxVarintLen64)]))
	if n <= 0 {
		d.fail("number")
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

// str returns the next string, a part of buf.
func (d *indexDecoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.buf)) {
		d.fail("string")
		return ""
	}
	s := d.buf[:n]
	d.buf = d.buf[n:]
	return s
}

// intern returns a string that repeats across records, kept once.
func (d *indexDecoder) intern() string {
	s := d.str()
	if v, ok := d.interned[s]; ok {
		return v
	}
	d.interned[s] = s
	return s
}

func (d *indexDecoder) time() time.Time {
	sec := d.varint()
	nsec := d.uvarint()
	if nsec >= 1e9 {
		d.fail("time")
	}
	return time.Unix(sec, int64(nsec))
}
