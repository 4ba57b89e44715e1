package otlp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/clock"
)

// collector answers each export with the next of statuses (the last one
// again when they run out) and counts the exports.
func collector(t *testing.T, statuses ...int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, "application/x-protobuf", r.Header.Get("Content-Type"))
		assert.Equal(t, "v", r.Header.Get("K"))
		i := int(n.Add(1)) - 1
		w.WriteHeader(statuses[min(i, len(statuses)-1)])
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestUploadRetriesWhatIsTemporary(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		statuses []int
		waits    int // retries waited for on the clock
		exports  int32
		err      string
	}{
		{"at once", []int{http.StatusOK}, 0, 1, ""},
		{"after two refusals", []int{http.StatusServiceUnavailable, http.StatusTooManyRequests, http.StatusOK}, 2, 3, ""},
		{"busy for good", []int{http.StatusBadGateway}, 2, 3, "502 Bad Gateway"},
		{"refused for good", []int{http.StatusBadRequest}, 0, 1, "400 Bad Request"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, exports := collector(t, tt.statuses...)
			clk := clock.NewManual(time.Unix(0, 0))
			c := &client{url: srv.URL + tracesPath, headers: map[string]string{"K": "v"}, timeout: time.Minute,
				http: srv.Client(), clock: clk}
			done := make(chan error, 1)
			armed := clk.Armed()
			go func() { done <- c.UploadTraces(t.Context(), nil) }()
			for range tt.waits {
				select {
				case <-armed:
				case err := <-done:
					t.Fatalf("UploadTraces returned %v before its retries", err)
				}
				armed = clk.Armed()
				clk.Add(time.Second) // the longest wait
			}
			err := <-done
			if tt.err == "" {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
			}
			assert.Equal(t, tt.exports, exports.Load())
		})
	}
}

func TestUploadStopsWaitingWithTheContext(t *testing.T) {
	t.Parallel()
	srv, exports := collector(t, http.StatusServiceUnavailable)
	clk := clock.NewManual(time.Unix(0, 0))
	c := &client{url: srv.URL, headers: map[string]string{"K": "v"}, timeout: time.Minute, http: srv.Client(), clock: clk}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	armed := clk.Armed()
	go func() { done <- c.UploadTraces(ctx, nil) }()
	<-armed
	cancel()
	err := <-done
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "503")
	assert.Equal(t, int32(1), exports.Load())
}
