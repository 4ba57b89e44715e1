package audit

import (
	"testing"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// BenchmarkAppend measures one line appended (flock, stat, write, unlock)
// by one writer.
func BenchmarkAppend(b *testing.B) {
	w, err := Open(b.TempDir(), Options{MaxBytes: 4 << 20, Keep: 2})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	ev := store.Event{Kind: store.EventProcessed, Agent: "coder", From: "researcher",
		MessageID: "0196a1b2-0000-7000-8000-000000000000", Ref: "1745659200000_researcher_abcdef0123456789abcd.msg.json"}
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Append(ev); err != nil {
			b.Fatal(err)
		}
	}
}
