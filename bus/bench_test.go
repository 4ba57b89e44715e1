package bus_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/bus"
)

// benchCapacity is the queue size of both the Bus and the plain channel.
const benchCapacity = bus.DefaultCapacity

// BenchmarkThroughput moves b.N inbound messages from P producers to one
// consumer, through the Bus and, as the baseline, through a plain buffered
// channel of the same capacity and element type. It reports msgs/s.
//
//	go test -run='^$' -bench=Throughput -benchtime=2s -count=5 ./bus
//
// See docs/bus-benchmark.md for figures.
func BenchmarkThroughput(b *testing.B) {
	impls := []struct {
		name string
		// pipe returns the publish and consume functions of a fresh queue.
		// Both sides pass messages by value, as a caller of the Bus does.
		pipe func() (publish func(context.Context, bus.InboundMessage) error, consume func(context.Context) (bus.InboundMessage, error))
	}{
		{
			name: "bus",
			pipe: func() (func(context.Context, bus.InboundMessage) error, func(context.Context) (bus.InboundMessage, error)) {
				q := bus.New(benchCapacity)
				return q.PublishInbound, q.ConsumeInbound
			},
		},
		{
			name: "chan",
			pipe: func() (func(context.Context, bus.InboundMessage) error, func(context.Context) (bus.InboundMessage, error)) {
				ch := make(chan bus.InboundMessage, benchCapacity)
				return func(_ context.Context, m bus.InboundMessage) error {
						ch <- m
						return nil
					}, func(context.Context) (bus.InboundMessage, error) {
						return <-ch, nil
					}
			},
		},
	}
	for _, impl := range impls {
		for _, producers := range []int{1, 8} {
			b.Run(fmt.Sprintf("%s/producers=%d", impl.name, producers), func(b *testing.B) {
				publish, consume := impl.pipe()
				ctx := context.Background()
				msg := bus.InboundMessage{Channel: "bench", SenderID: "u", ChatID: "c", Content: "hello"}
				b.ReportAllocs()
				b.ResetTimer()

				var wg sync.WaitGroup
				for p := range producers {
					// Split b.N as evenly as possible among the producers.
					n := b.N / producers
					if p < b.N%producers {
						n++
					}
					wg.Go(func() {
						for range n {
							if err := publish(ctx, msg); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				var size int
				for range b.N {
					m, err := consume(ctx)
					if err != nil {
						b.Fatal(err)
					}
					size += len(m.Content) // use the message, as a consumer would
				}
				wg.Wait()
				b.StopTimer()
				if size != b.N*len(msg.Content) {
					b.Fatalf("consumed %d bytes of content, want %d", size, b.N*len(msg.Content))
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
			})
		}
	}
}
