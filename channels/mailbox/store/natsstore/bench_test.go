package natsstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
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
// which varies less than wall time on a loaded machine. BenchmarkSideBySide
// (bench_side_test.go) takes turns between the three in one run. The
// store runs as a user gets it by default: history and audit log on.
// "sync" acknowledges with the server's confirmation (the store's
// default), "async" without (Options.AsyncAck; plain Ack()).

func BenchmarkThroughput(b *testing.B) {
	ts := startServer(b, "")
	for _, async := range []bool{false, true} {
		b.Run("store/"+modeName(async), func(b *testing.B) { measure(b, storeEnds(b, ts, async, false), false) })
		b.Run("raw/"+modeName(async), func(b *testing.B) { measure(b, rawEnds(b, ts, async, false), false) })
		b.Run("raw+codec/"+modeName(async), func(b *testing.B) { measure(b, rawEnds(b, ts, async, true), false) })
	}
}

func BenchmarkLatency(b *testing.B) {
	ts := startServer(b, "")
	for _, async := range []bool{false, true} {
		b.Run("store/"+modeName(async), func(b *testing.B) { measure(b, storeEnds(b, ts, async, false), true) })
		b.Run("raw/"+modeName(async), func(b *testing.B) { measure(b, rawEnds(b, ts, async, false), true) })
		b.Run("raw+codec/"+modeName(async), func(b *testing.B) { measure(b, rawEnds(b, ts, async, true), true) })
	}
}

func modeName(async bool) string { return map[bool]string{false: "sync", true: "async"}[async] }

// ends are the two ends of one benchmarked pipe: send one message (from
// one goroutine), receive and acknowledge one (from another).
type ends struct {
	send func() error
	recv func() error
}

// storeEnds sends and receives through natsstore, as agents "alice" and
// "bob" of a fresh stream, with what a user gets by default: the history
// on (a history stream of its own) and the audit log on (the mailbox's
// auditLog). noHistory turns the history, and with it the audit log, off.
func storeEnds(b *testing.B, ts *testServer, async, noHistory bool) ends {
	run := nextRun()
	opts := natsstore.Options{Conn: ts.Connect(b), Stream: "BENCH" + run, SubjectPrefix: "bench" + run,
		HistoryStream: "HIST" + run, RegistryBucket: "reg" + run, PresenceBucket: "pres" + run,
		StateBucket: "state" + run, LockBucket: "lock" + run, AsyncAck: async,
		AuditLog: true, NoHistory: noHistory}
	be := openWith(b, opts)
	recvOpts := opts
	recvOpts.Conn = ts.Connect(b)
	rx := openWith(b, recvOpts)
	ctx := context.Background()
	in, err := rx.OpenInbox(ctx, "bob")
	require.NoError(b, err)
	b.Cleanup(func() { in.Close() })
	// Each send is a copy of one message with a fresh id (the raw sends
	// number their Nats-Msg-Id instead), so that no benchmark keeps b.N
	// messages alive for the garbage collector to scan.
	tmpl := storetest.NewMessage("alice", "bob", "benchmark payload")
	return ends{
		send: func() error {
			m := *tmpl
			m.ID = envelope.NewID()
			return be.Deliver(ctx, &m)
		},
		recv: func() error {
			d, err := in.Next(ctx)
			if err != nil {
				return err
			}
			return in.Ack(ctx, d)
		},
	}
}

// rawEnds does the same with nats.go alone: Publish with a message id,
// a durable pull consumer, Consume, Ack or DoubleAck. With codec, each send
// encodes the message and each receipt decodes it, as any mailbox backend
// must, so the difference to the store is the store's own work.
func rawEnds(b *testing.B, ts *testServer, async, codec bool) ends {
	ctx := context.Background()
	js, subject, got := rawStream(b, ts, "raw", 64, 32)
	msg := storetest.NewMessage("alice", "bob", "benchmark payload")
	data, err := envelope.EncodeCompact(msg)
	require.NoError(b, err)
	sent := 0
	return ends{
		send: func() error {
			sent++
			m := nats.NewMsg(subject)
			m.Data = data
			if codec {
				var err error
				if m.Data, err = envelope.EncodeCompact(msg); err != nil {
					return err
				}
			}
			m.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("bob:%d", sent))
			_, err := js.PublishMsg(ctx, m)
			return err
		},
		recv: func() error {
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
		},
	}
}

// rawStream makes, with nats.go alone, what the store makes for bob's
// inbox: a work-queue stream named by prefix and a new run number, with a
// consumer for bob's subjects whose messages arrive on got (buffer
// messages, pulled batch at a time). js, made with opts, publishes to
// subject, alice's subject in bob's inbox.
func rawStream(b *testing.B, ts *testServer, prefix string, buffer, batch int, opts ...jetstream.JetStreamOpt) (
	js jetstream.JetStream, subject string, got chan jetstream.Msg) {
	run := nextRun()
	ctx := context.Background()
	js, err := jetstream.New(ts.Connect(b), opts...)
	require.NoError(b, err)
	stream := strings.ToUpper(prefix) + run
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{prefix + run + ".>"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: 2 * time.Minute})
	require.NoError(b, err)
	rjs, err := jetstream.New(ts.Connect(b))
	require.NoError(b, err)
	cons, err := rjs.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{Durable: "bob",
		FilterSubject: prefix + run + ".bob.inbox.*", AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second})
	require.NoError(b, err)
	got = make(chan jetstream.Msg, buffer)
	cc, err := cons.Consume(func(m jetstream.Msg) { got <- m }, jetstream.PullMaxMessages(batch))
	require.NoError(b, err)
	b.Cleanup(cc.Stop)
	return js, prefix + run + ".bob.inbox.alice", got
}

// measure runs b.N sends and receives, pipelined or one by one.
func measure(b *testing.B, e ends, oneByOne bool) {
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	defer func() { b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/msg") }()
	if oneByOne {
		lat, err := oneByOneLatencies(e, b.N)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		b.ReportMetric(float64(percentile(lat, 50).Microseconds()), "p50-µs")
		b.ReportMetric(float64(percentile(lat, 99).Microseconds()), "p99-µs")
		return
	}
	if _, err := pipelined(e, b.N); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

// oneByOneLatencies sends n messages one at a time and returns the time
// from each send to its acknowledged receipt.
func oneByOneLatencies(e ends, n int) ([]time.Duration, error) {
	lat := make([]time.Duration, n)
	for i := range n {
		start := time.Now()
		if err := e.send(); err != nil {
			return nil, err
		}
		if err := e.recv(); err != nil {
			return nil, err
		}
		lat[i] = time.Since(start)
	}
	return lat, nil
}

// pipelined sends n messages from one goroutine while this one receives
// them, and returns the rate in messages per second.
func pipelined(e ends, n int) (float64, error) {
	start := time.Now()
	errs := make(chan error, 1)
	go func() {
		for range n {
			if err := e.send(); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	for range n {
		if err := e.recv(); err != nil {
			return 0, err
		}
	}
	if err := <-errs; err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// percentile returns the p-th percentile of d, sorting d.
func percentile(d []time.Duration, p int) time.Duration {
	slices.Sort(d)
	return d[min(len(d)-1, len(d)*p/100)]
}

var runs int

// nextRun numbers the streams and buckets of each benchmark run.
func nextRun() string {
	runs++
	return fmt.Sprint(runs)
}

var _ driver.Backend = (*natsstore.Store)(nil)
