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
	var (
		listen     string
		readOpen   bool
		allowHosts []string
	)
	cmd := &cobra.Command{
		Use:   "console [--listen ADDR] [--read-open] [--allow-host NAME]...",
		Short: "Serve the operator's web console",
		Long: `Console serves a web application that shows the mailbox live: agents,
conversations, delegated tasks, who talks to whom, set-aside messages,
replies owed and the audit log (see docs/console.md).

It prints its address with a token at start. Opened with the token, the
page can act as the operator: send or reply, cancel a task, redeliver or
discard a set-aside message, archive a request. Without the token nothing
can be read either (any local user can reach a loopback port), unless
--read-open lets a page opened without it read, on a loopback address
only: the page is then read-only. The token is fresh at every start
unless SWITCHBOARD_CONSOLE_TOKEN sets it. What it sends is signed with the
operator's key, made and pinned at its first start (docs/security.md).

It listens on the loopback address 127.0.0.1:8470 by default. Another
address is refused unless SWITCHBOARD_CONSOLE_TOKEN is set. A request
whose Host header names another host than the address it reached (a web
page that had its own name resolved to the console: DNS rebinding), or
that comes from another origin, is refused; --allow-host adds a DNS name
the console is reached by. It runs until SIGINT or SIGTERM. See
docs/security.md.`,
		Example: `  switchboard console
  switchboard console --listen 127.0.0.1:9000
  SWITCHBOARD_CONSOLE_TOKEN=... switchboard console --listen 0.0.0.0:8470`,
		Args: maxArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			return a.console(cmd.Context(), listen, readOpen, allowHosts)
		}),
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8470", "address to serve on (host:port; port 0 picks a free one)")
	cmd.Flags().BoolVar(&readOpen, "read-open", false, "let a page opened without the token read (read-only; a loopback address only)")
	cmd.Flags().StringSliceVar(&allowHosts, "allow-host", nil, "a DNS name the console is reached by, allowed in the Host header (repeat)")
	a.addLogFlags(cmd, "warn")
	return cmd
}

func (a *app) console(ctx context.Context, listen string, readOpen bool, allowHosts []string) error {
	token, fixed := a.lookupEnv(consoleTokenEnv)
	loopback, err := isLoopback(listen)
	if err != nil {
		return asUsage(fmt.Errorf("--listen %q: %w", listen, err))
	}
	if !loopback && !fixed {
		return asUsage(fmt.Errorf("--listen %q is not a loopback address: set %s to the token every request must carry, or listen on 127.0.0.1", listen, consoleTokenEnv))
	}
	if !loopback && readOpen {
		return asUsage(fmt.Errorf("--read-open is for a loopback address only: on %q every request needs the token", listen))
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
	key, err := a.operatorKey(ctx, m, s, true)
	if err != nil {
		return err
	}
	c, err := console.New(console.Config{Store: m.be, Where: m.where, Token: token, ReadOpen: readOpen, AllowHosts: allowHosts, Key: key,
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
	without := "without it nothing can be read (--read-open: read-only)"
	if readOpen {
		without = "without it the page is read-only"
	}
	fmt.Fprintf(a.env.Stderr, "serving the console of %s at %s (the address with #token= can act as the operator; %s; Ctrl-C to stop)\n", m.where, addr, without)
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
