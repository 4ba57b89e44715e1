package natsstore_test

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkSideBySide takes turns between the store, raw and raw+codec
// (see bench_test.go) in batches of sideBatch messages, first one at a time
// and then pipelined, so that all three see the same load on the machine;
// on a busy machine this compares them more fairly than the separate
// benchmarks, which run one after the other. Each sends 2*b.N messages. It
// reports each one's p50 latency and median throughput over the batches,
// and the store's against raw's. "sync" and "async" run the store as a
// user gets it by default (history and audit log on), "-nohistory" with
// the history (and so the audit log) off:
//
//	go test -run '^$' -bench SideBySide -benchtime 5000x -count 3 ./channels/mailbox/store/natsstore/
func BenchmarkSideBySide(b *testing.B) {
	ts := startServer(b, "")
	for _, async := range []bool{false, true} {
		for _, noHistory := range []bool{false, true} {
			name := modeName(async)
			if noHistory {
				name += "-nohistory"
			}
			b.Run(name, func(b *testing.B) { sideBySide(b, ts, async, noHistory) })
		}
	}
}

// sideBySide is one case of BenchmarkSideBySide.
func sideBySide(b *testing.B, ts *testServer, async, noHistory bool) {
	names := []string{"store", "raw", "codec"}
	pipes := []ends{storeEnds(b, ts, async, noHistory), rawEnds(b, ts, async, false), rawEnds(b, ts, async, true)}
	lat := make([][]time.Duration, len(pipes))
	rates := make([][]float64, len(pipes))
	b.ResetTimer()
	for done := 0; done < b.N; done += sideBatch {
		n := min(sideBatch, b.N-done)
		for i, e := range pipes {
			l, err := oneByOneLatencies(e, n)
			if err != nil {
				b.Fatal(err)
			}
			lat[i] = append(lat[i], l...)
			r, err := pipelined(e, n)
			if err != nil {
				b.Fatal(err)
			}
			rates[i] = append(rates[i], r)
		}
	}
	b.StopTimer()
	p50 := make([]float64, len(pipes))
	rate := make([]float64, len(pipes))
	for i, name := range names {
		p50[i] = float64(percentile(lat[i], 50).Microseconds())
		slices.Sort(rates[i])
		rate[i] = rates[i][len(rates[i])/2]
		b.ReportMetric(p50[i], name+"-p50-µs")
		b.ReportMetric(rate[i], name+"-msgs/s")
	}
	b.ReportMetric(p50[0]/p50[1], "store/raw-p50")
	b.ReportMetric(rate[1]/rate[0], "raw/store-msgs/s")
}

// sideBatch is how many messages BenchmarkSideBySide sends through one
// pipe before it turns to the next.
const sideBatch = 200
