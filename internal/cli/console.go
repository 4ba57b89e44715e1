package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/internal/console"
)

// consoleTokenEnv names the environment variable that sets the console's
// token instead of a fresh random one.
const consoleTokenEnv = "SWITCHBOARD_CONSOLE_TOKEN"

func (a *app) consoleCommand() *cobra.Command {
	var listen string
	cmd := &cobra.Command{
		Use:   "console [--listen ADDR]",
		Short: "Serve the operator's web console",
		Long: `Console serves a web application that shows the mailbox live: agents,
conversations, delegated tasks, who talks to whom, set-aside messages,
replies owed and the audit log (see docs/console.md).

It prints its address with a token at start. Opened with the token, the
page can act as the operator: send or reply, cancel a task, redeliver or
discard a set-aside message, archive a request. Opened without it, the
page is read-only. The token is fresh at every start unless
SWITCHBOARD_CONSOLE_TOKEN sets it.

It listens on the loopback address 127.0.0.1:8470 by default. Another
address is refused unless SWITCHBOARD_CONSOLE_TOKEN is set, and then
every request, reads included, needs the token. It runs until SIGINT or
SIGTERM.`,
		Example: `  switchboard console
  switchboard console --listen 127.0.0.1:9000
  SWITCHBOARD_CONSOLE_TOKEN=... switchboard console --listen 0.0.0.0:8470`,
		Args: maxArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			return a.console(cmd.Context(), listen)
		}),
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8470", "address to serve on (host:port; port 0 picks a free one)")
	a.addLogFlags(cmd, "warn")
	return cmd
}

func (a *app) console(ctx context.Context, listen string) error {
	token, fixed := a.lookupEnv(consoleTokenEnv)
	loopback, err := isLoopback(listen)
	if err != nil {
		return asUsage(fmt.Errorf("--listen %q: %w", listen, err))
	}
	if !loopback && !fixed {
		return asUsage(fmt.Errorf("--listen %q is not a loopback address: set %s to the token every request must carry, or listen on 127.0.0.1", listen, consoleTokenEnv))
	}
	if !fixed {
		token = console.NewToken()
	}
	m, s, err := a.openMailbox(false)
	if err != nil {
		return err
	}
	defer m.close()
	stopTracing, err := a.startTracing(ctx, s.config.Observability.Tracing, "", a.logger(slog.LevelWarn))
	if err != nil {
		return err
	}
	defer stopTracing()
	c, err := console.New(console.Config{Store: m.be, Where: m.where, Token: token, TokenToRead: !loopback,
		OfflineAfter: seconds(s.mailbox.OfflineAfter), ReplyTimeout: seconds(s.mailbox.ReplyTimeout),
		DefaultTTL: s.mailbox.DefaultTTL, MaxThreadHops: s.mailbox.MaxThreadHops, Logger: a.logger(slog.LevelWarn)})
	if err != nil {
		return err
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", listen)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	srv := &http.Server{Handler: c.Handler(), ReadHeaderTimeout: 10 * time.Second}
	addr := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(a.env.Stdout, "console %s#token=%s\n", addr, token)
	fmt.Fprintf(a.env.Stderr, "serving the console of %s at %s (the address with #token= can act as the operator; without it the page is read-only; Ctrl-C to stop)\n", m.where, addr)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	followed := make(chan struct{})
	go func() { defer close(followed); _ = c.Run(ctx) }()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err = <-served:
	case <-ctx.Done():
		shut, done := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		_ = srv.Shutdown(shut) // the event streams end with the page's request
		done()
		_ = srv.Close()
		err = <-served
	}
	cancel()
	<-followed
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// isLoopback reports whether listen (host:port) names only loopback
// addresses: 127.0.0.0/8, ::1 or localhost. An empty host (all
// interfaces) is not.
func isLoopback(listen string) (bool, error) {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false, err
	}
	if strings.EqualFold(host, "localhost") {
		return true, nil
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback(), nil
}

// lookupEnv returns an environment variable of the command's process.
func (a *app) lookupEnv(name string) (string, bool) {
	for _, kv := range a.env.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name && v != "" {
			return v, true
		}
	}
	return "", false
}
