package metrics

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// checkTimeout bounds each check of /healthz and /readyz.
const checkTimeout = 3 * time.Second

// Check is one condition of /healthz or /readyz: nil when it holds, else
// why not.
type Check struct {
	Name string
	Fn   func(ctx context.Context) error
}

// Server serves m's metrics and checks over HTTP. Create it with Listen.
type Server struct {
	srv  *http.Server
	addr string
	done chan struct{}
}

// Listen listens on addr (host:port; port 0 picks a free one) and serves,
// until Close:
//
//	/metrics  m's registry in the Prometheus text format
//	/healthz  200 when every live check holds, else 503 with the reasons
//	/readyz   200 when every live and ready check holds, else 503
func Listen(addr string, m *Metrics, live, ready []Check, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn), ErrorHandling: promhttp.ContinueOnError}))
	mux.Handle("GET /healthz", checksHandler(live))
	mux.Handle("GET /readyz", checksHandler(append(append([]Check{}, live...), ready...)))
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, addr: ln.Addr().String(),
		done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "err", err)
		}
	}()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.addr }

// Close stops the server, letting requests in progress finish within
// ctx.
func (s *Server) Close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	<-s.done
	return err
}

// checksHandler answers 200 "ok" when every check holds, else 503 with
// one line per check that failed.
func checksHandler(checks []Check) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var failed []string
		for _, c := range checks {
			ctx, cancel := context.WithTimeout(r.Context(), checkTimeout)
			err := c.Fn(ctx)
			cancel()
			if err != nil {
				failed = append(failed, c.Name+": "+oneLine(err.Error()))
			}
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if len(failed) > 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, strings.Join(failed, "\n"))
			return
		}
		fmt.Fprintln(w, "ok")
	})
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
