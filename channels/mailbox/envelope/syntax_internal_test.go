package envelope

import (
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

func TestDottedPath(t *testing.T) {
	for ptr, want := range map[jsontext.Pointer]string{
		"/id":                    "id",
		"/task/id":               "task.id",
		"/content/parts/0/type":  "content.parts[0].type",
		"/metadata/a~1b~0c/x":    "metadata.a/b~c.x",
		"/metadata/007/x":        "metadata.007.x",
		"/":                      "",
		"/metadata/12/k":         "metadata[12].k",
		"/trace/3":               "trace[3]",
		"/content/parts/10/data": "content.parts[10].data",
	} {
		if got := dottedPath(ptr); got != want {
			t.Errorf("dottedPath(%q) = %q, want %q", ptr, got, want)
		}
	}
}

// BenchmarkCheckSyntax is the duplicate-name check alone and the whole
// DecodeBytes, on a message of the mailbox harness's shape (1.4 KB
// compact), so that the check's share can be told.
func BenchmarkCheckSyntax(b *testing.B) {
	m := &Message{ID: "0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", From: "bench-tx", To: "bench-rx",
		Timestamp: NewTime(time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)), Type: TypeMessage, TTL: 3,
		Trace: []string{"bench-tx"}, Content: Content{Parts: []Part{
			TextPart(strings.Repeat("x", 1024)), DataPart(map[string]any{"seq": "17", "sent_ns": "1763000000000000000"})}},
		ThreadID: "0196a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"}
	data, err := EncodeCompact(m)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("check", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if err := checkSyntax(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) { // the whole DecodeBytes, check included
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeBytes(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
