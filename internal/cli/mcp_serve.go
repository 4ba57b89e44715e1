package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/internal/mcpserver"
)

// serveMCPStdio serves srv over stdin and stdout (nil stdin: os.Stdin)
// until ctx ends or the client closes its end.
func serveMCPStdio(ctx context.Context, srv *mcpserver.Server, stdin io.Reader, stdout io.Writer) error {
	if stdin == nil {
		stdin = os.Stdin
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if err := srv.MCP().Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp over stdio: %w", err)
	}
	return nil
}

// serveMCPHTTP serves streamable HTTP on addr until ctx ends; every
// request must carry token when it is set.
func serveMCPHTTP(ctx context.Context, srv *mcpserver.Server, addr, token string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", addr, err)
	}
	hs := &http.Server{Handler: srv.HTTPHandler(mcpserver.HTTPOptions{Token: token}), ReadHeaderTimeout: readHeaderTimeout}
	fmt.Fprintf(stderr, "serving MCP on http://%s/mcp (Ctrl-C to stop)\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve MCP on %s: %w", addr, err)
	case <-ctx.Done():
	}
	// Open event streams never end by themselves: give the calls in
	// progress a moment, then cut what is left.
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_ = hs.Shutdown(stop)
	return hs.Close()
}

// readHeaderTimeout bounds the reading of a request's headers.
const readHeaderTimeout = 10 * time.Second

// nopWriteCloser lets the MCP transport close stdout without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
