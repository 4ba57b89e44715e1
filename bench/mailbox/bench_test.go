package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"
)

// BenchmarkDeliver times the store's Deliver of a 1 KiB probe beside the
// raw file operations beneath it, in one process and one run:
//
//	go test -run='^$' -bench=Deliver -benchtime=2000x ./bench/mailbox
//
// The cross-process figures come from the harness (go run ./bench/mailbox).
func BenchmarkDeliver(b *testing.B) {
	for _, fsync := range []bool{true, false} {
		b.Run(fmt.Sprintf("store/fsync=%t", fsync), func(b *testing.B) {
			s, err := openSender(b.TempDir(), fsync, 1024)
			if err != nil {
				b.Fatal(err)
			}
			defer s.close()
			ctx := context.Background()
			b.ResetTimer()
			for i := range b.N {
				if _, _, err := s.send(ctx, i); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("raw/fsync=%t", fsync), func(b *testing.B) {
			payload := bytes.Repeat([]byte{'m'}, 1560)
			if _, err := rawOps(context.Background(), b.TempDir(), b.N, payload, fsync); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkRoundTrip times Deliver, Next and Ack of one message at a time
// through one store in one process (no channel, no bus).
//
//	go test -run='^$' -bench=RoundTrip -benchtime=2000x ./bench/mailbox
func BenchmarkRoundTrip(b *testing.B) {
	for _, fsync := range []bool{true, false} {
		b.Run(fmt.Sprintf("fsync=%t", fsync), func(b *testing.B) {
			root := b.TempDir()
			s, err := openSender(root, fsync, 1024)
			if err != nil {
				b.Fatal(err)
			}
			defer s.close()
			ctx := context.Background()
			in, err := s.st.OpenInbox(ctx, receiverID)
			if err != nil {
				b.Fatal(err)
			}
			defer in.Close()
			b.ResetTimer()
			for i := range b.N {
				if _, _, err := s.send(ctx, i); err != nil {
					b.Fatal(err)
				}
				d, err := in.Next(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := in.Ack(ctx, d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
