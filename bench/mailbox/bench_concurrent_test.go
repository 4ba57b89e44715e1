package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// BenchmarkDeliverConcurrent times the store's Deliver with fsync on from
// 1, 4 and 16 goroutines at once, to one inbox and to 64 inboxes in turn,
// beside the raw peer measured in the same run: the same number of
// goroutines each doing create+write+fsync+link+folder fsync per message
// (rawConcurrent), nothing shared. Concurrent Delivers to one inbox share
// its folder fsyncs (group commit); compare msg/s of store and raw:
//
//	go test -run='^$' -bench=DeliverConcurrent -benchtime=2000x ./bench/mailbox
func BenchmarkDeliverConcurrent(b *testing.B) {
	for _, inboxes := range []int{1, 64} {
		for _, g := range []int{1, 4, 16} {
			name := fmt.Sprintf("inboxes=%d/goroutines=%d", inboxes, g)
			b.Run("store/"+name, func(b *testing.B) {
				s, err := openSender(b.TempDir(), true, 1024)
				if err != nil {
					b.Fatal(err)
				}
				defer s.close()
				ctx := context.Background()
				// The recipients' folders are made by a first delivery each,
				// as an agent that has run has them.
				if err := s.deliverConcurrent(ctx, inboxes, g, inboxes); err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				if err := s.deliverConcurrent(ctx, b.N, g, inboxes); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msg/s")
			})
			b.Run("raw/"+name, func(b *testing.B) {
				payload := bytes.Repeat([]byte{'m'}, 1560)
				folders, err := makeRawFolders(b.TempDir(), inboxes)
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				if err := folders.rawConcurrent(context.Background(), 0, b.N, g, payload, true); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msg/s")
			})
		}
	}
}
