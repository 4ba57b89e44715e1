package natsstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
)

// inFlight is how many publishes BenchmarkInFlight keeps outstanding.
const inFlight = 64

// BenchmarkInFlight measures pipelined throughput with many publishes in
// flight: inFlight goroutines send at once (each Deliver, or each raw
// PublishMsg, waits for its own acknowledgement from the stream) while one
// receiver takes and acknowledges the messages. It takes turns, every
// sideBatch*5 messages, between the store with the history on (the
// default), the store with the history off, raw nats.go with the same
// inFlight synchronous publishers, and raw nats.go with PublishMsgAsync and
// a window of inFlight; all on one embedded server, in the same run, so
// that the ratios compare like with like on a busy machine. Receipts are
// acknowledged without waiting for the server (the store's AsyncAck, raw
// Ack), as a pipelined consumer would:
//
//	go test -run '^$' -bench InFlight -benchtime 20000x -count 3 ./channels/mailbox/store/natsstore/
func BenchmarkInFlight(b *testing.B) {
	ts := startServer(b, "")
	names := []string{"store", "store-nohistory", "raw", "raw-async"}
	pipes := []inflightEnds{
		inflightStore(b, ts, false), inflightStore(b, ts, true),
		inflightRaw(b, ts, false), inflightRaw(b, ts, true),
	}
	rates := make([][]float64, len(pipes))
	batch := sideBatch * 5
	b.ResetTimer()
	for done := 0; done < b.N; done += batch {
		n := min(batch, b.N-done)
		for i, e := range pipes {
			r, err := inflightRun(e, n)
			if err != nil {
				b.Fatalf("%s: %v", names[i], err)
			}
			rates[i] = append(rates[i], r)
		}
	}
	b.StopTimer()
	median := make([]float64, len(pipes))
	for i, name := range names {
		slices.Sort(rates[i])
		median[i] = rates[i][len(rates[i])/2]
		b.ReportMetric(median[i], name+"-msgs/s")
	}
	b.ReportMetric(median[2]/median[0], "raw/store")
	b.ReportMetric(median[2]/median[1], "raw/store-nohistory")
	b.ReportMetric(median[3]/median[0], "raw-async/store")
}

// inflightEnds are the ends of one pipe: send is called from inFlight
// goroutines at once (flush, if set, waits for the sends' acknowledgements
// after the last), recv from one; recv gives up when ctx ends (a send
// failed).
type inflightEnds struct {
	send  func() error
	flush func() error
	recv  func(ctx context.Context) error
}

// inflightRun sends n messages from inFlight goroutines while this one
// receives them, and returns the rate in messages per second.
func inflightRun(e inflightEnds, n int) (float64, error) {
	start := time.Now()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range inFlight {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				if err := e.send(); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	for range n {
		if err := e.recv(ctx); err != nil {
			wg.Wait()
			return 0, errors.Join(err, context.Cause(ctx))
		}
	}
	wg.Wait()
	if e.flush != nil {
		if err := e.flush(); err != nil {
			return 0, err
		}
	}
	if err := context.Cause(ctx); err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// inflightStore sends through one store (Deliver is safe for concurrent
// use) and receives through another, as storeEnds does, with AsyncAck.
func inflightStore(b *testing.B, ts *testServer, noHistory bool) inflightEnds {
	run := nextRun()
	opts := natsstore.Options{Conn: ts.Connect(b), Stream: "INFS" + run, SubjectPrefix: "infs" + run,
		HistoryStream: "INFH" + run, RegistryBucket: "ireg" + run, PresenceBucket: "ipres" + run,
		StateBucket: "istate" + run, LockBucket: "ilock" + run, AsyncAck: true,
		AuditLog: true, NoHistory: noHistory}
	be := openWith(b, opts)
	recvOpts := opts
	recvOpts.Conn = ts.Connect(b)
	rx := openWith(b, recvOpts)
	in, err := rx.OpenInbox(context.Background(), "bob")
	require.NoError(b, err)
	b.Cleanup(func() { in.Close() })
	tmpl := storetest.NewMessage("alice", "bob", "benchmark payload")
	return inflightEnds{
		send: func() error {
			m := *tmpl
			m.ID = envelope.NewID()
			return be.Deliver(context.Background(), &m)
		},
		recv: func(ctx context.Context) error {
			d, err := in.Next(ctx)
			if err != nil {
				return err
			}
			return in.Ack(ctx, d)
		},
	}
}

// inflightRaw does the same with nats.go alone, the message encoded once:
// inFlight goroutines with PublishMsg, or (async) PublishMsgAsync with a
// window of inFlight and one wait for all acknowledgements at the end.
func inflightRaw(b *testing.B, ts *testServer, async bool) inflightEnds {
	ctx := context.Background()
	js, subject, got := rawStream(b, ts, "inf", 256, 256, jetstream.WithPublishAsyncMaxPending(inFlight))
	data, err := envelope.EncodeCompact(storetest.NewMessage("alice", "bob", "benchmark payload"))
	require.NoError(b, err)
	var sent atomic.Int64
	e := inflightEnds{
		send: func() error {
			m := nats.NewMsg(subject)
			m.Data = data
			m.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("bob:%d", sent.Add(1)))
			if async {
				_, err := js.PublishMsgAsync(m, jetstream.WithStallWait(time.Minute))
				return err
			}
			_, err := js.PublishMsg(ctx, m)
			return err
		},
		recv: func(ctx context.Context) error {
			select {
			case m := <-got:
				return m.Ack()
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	}
	if async {
		e.flush = func() error {
			select {
			case <-js.PublishAsyncComplete():
				return nil
			case <-time.After(time.Minute):
				return fmt.Errorf("%d publishes not acknowledged after a minute", js.PublishAsyncPending())
			}
		}
	}
	return e
}
