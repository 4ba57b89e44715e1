package natsstore_test

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
)

// The benchmarks run the store and plain nats.go JetStream side by side on
// one embedded server, with the same payload (a mailbox message as the
// store publishes it, envelope.EncodeCompact), a work-queue stream on file
// storage, a durable pull consumer and explicit acks:
//
//	go test -run '^$' -bench . -benchtime 5000x -count 3 ./channels/mailbox/store/natsstore/
//
// Throughput: one goroutine sends b.N messages while another receives and
// acknowledges them. Latency: one message at a time, from send to
// acknowledged receipt; p50 and p99 are reported as metrics. cpu-µs/msg is
// the CPU time of the whole process (clients and server) per message,
// which varies less than wall time on a loaded machine.
// "sync" acknowledges with the server's confirmation (the store's
// default), "async" without (Options.AsyncAck; plain Ack()).

func BenchmarkThroughput(b *testing.B) {
	ts := startServer(b, "")
	for _, async := range []bool{false, true} {
		mode := map[bool]string{false: "sync", true: "async"}[async]
		b.Run("store/"+mode, func(b *testing.B) { benchStore(b, ts, async, false) })
		b.Run("raw/"+mode, func(b *testing.B) { benchRaw(b, ts, async, false, false) })
		b.Run("raw+codec/"+mode, func(b *testing.B) { benchRaw(b, ts, async, true, false) })
	}
}

func BenchmarkLatency(b *testing.B) {
	ts := startServer(b, "")
	for _, async := range []bool{false, true} {
		mode := map[bool]string{false: "sync", true: "async"}[async]
		b.Run("store/"+mode, func(b *testing.B) { benchStore(b, ts, async, true) })
		b.Run("raw/"+mode, func(b *testing.B) { benchRaw(b, ts, async, false, true) })
		b.Run("raw+codec/"+mode, func(b *testing.B) { benchRaw(b, ts, async, true, true) })
	}
}

// benchStore sends and receives through natsstore, as agents "alice" and
// "bob" of a fresh stream.
func benchStore(b *testing.B, ts *testServer, async, oneByOne bool) {
	run := nextRun()
	opts := natsstore.Options{Conn: ts.connect(b), Stream: "BENCH" + run, SubjectPrefix: "bench" + run,
		RegistryBucket: "reg" + run, PresenceBucket: "pres" + run, StateBucket: "state" + run,
		LockBucket: "lock" + run, AsyncAck: async}
	be := openWith(b, opts)
	recvOpts := opts
	recvOpts.Conn = ts.connect(b)
	rx := openWith(b, recvOpts)
	ctx := context.Background()
	in, err := rx.OpenInbox(ctx, "bob")
	require.NoError(b, err)
	defer in.Close()
	msgs := make([]*envelope.Message, b.N)
	for i := range msgs {
		msgs[i] = storetest.NewMessage("alice", "bob", "benchmark payload")
	}
	send := func(i int) error { return be.Deliver(ctx, msgs[i]) }
	recv := func() error {
		d, err := in.Next(ctx)
		if err != nil {
			return err
		}
		return in.Ack(ctx, d)
	}
	measure(b, send, recv, oneByOne)
}

// benchRaw does the same with nats.go alone: Publish with a message id,
// a durable pull consumer, Consume, Ack or DoubleAck. With codec, each send
// encodes the message and each receipt decodes it, as any mailbox backend
// must, so the difference to the store is the store's own work.
func benchRaw(b *testing.B, ts *testServer, async, codec, oneByOne bool) {
	run := nextRun()
	ctx := context.Background()
	js, err := jetstream.New(ts.connect(b))
	require.NoError(b, err)
	stream := "RAW" + run
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{"raw" + run + ".>"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: 2 * time.Minute})
	require.NoError(b, err)
	rjs, err := jetstream.New(ts.connect(b))
	require.NoError(b, err)
	cons, err := rjs.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{Durable: "bob",
		FilterSubject: "raw" + run + ".bob.inbox.*", AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second})
	require.NoError(b, err)
	got := make(chan jetstream.Msg, 64)
	cc, err := cons.Consume(func(m jetstream.Msg) { got <- m }, jetstream.PullMaxMessages(32))
	require.NoError(b, err)
	defer cc.Stop()
	msg := storetest.NewMessage("alice", "bob", "benchmark payload")
	data, err := envelope.EncodeCompact(msg)
	require.NoError(b, err)
	subject := "raw" + run + ".bob.inbox.alice"
	send := func(i int) error {
		m := nats.NewMsg(subject)
		m.Data = data
		if codec {
			if m.Data, err = envelope.EncodeCompact(msg); err != nil {
				return err
			}
		}
		m.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("bob:%d", i))
		_, err := js.PublishMsg(ctx, m)
		return err
	}
	recv := func() error {
		m := <-got
		if codec {
			if _, err := envelope.DecodeBytes(m.Data()); err != nil {
				return err
			}
		}
		if async {
			return m.Ack()
		}
		return m.DoubleAck(ctx)
	}
	measure(b, send, recv, oneByOne)
}

// measure runs b.N sends and receives, pipelined or one by one.
func measure(b *testing.B, send func(int) error, recv func() error, oneByOne bool) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	defer func() { b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/msg") }()
	if oneByOne {
		lat := make([]time.Duration, b.N)
		for i := range b.N {
			start := time.Now()
			if err := send(i); err != nil {
				b.Fatal(err)
			}
			if err := recv(); err != nil {
				b.Fatal(err)
			}
			lat[i] = time.Since(start)
		}
		b.StopTimer()
		slices.Sort(lat)
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		return
	}
	errs := make(chan error, 1)
	go func() {
		for i := range b.N {
			if err := send(i); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	for range b.N {
		if err := recv(); err != nil {
			b.Fatal(err)
		}
	}
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

var runs int

// nextRun numbers the streams and buckets of each benchmark run.
func nextRun() string {
	runs++
	return fmt.Sprint(runs)
}

var _ store.Backend = (*natsstore.Store)(nil)

// cpuTime is the CPU time the process (the clients and the embedded
// server) has used so far. CPU per message varies less than wall time
// when other programs load the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
