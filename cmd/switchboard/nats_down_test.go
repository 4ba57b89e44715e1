package main_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// closedURL returns the URL of a port on 127.0.0.1 nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return "nats://" + addr
}

// silentURL returns the URL of a server that takes connections and never
// says a word, as a wrong port or a hung server does.
func silentURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "nats://" + l.Addr().String()
}

// natsConf writes a config whose mailbox is on NATS at url, with more keys
// of channels.mailbox.nats (JSON, may be empty).
func natsConf(s *sandbox, url, more string) string {
	keys := fmt.Sprintf(`"url": %q`, url)
	if more != "" {
		keys += ", " + more
	}
	return s.writeConfig("down.json", `{"channels": {"mailbox": {"backend": "nats", "nats": {`+keys+`}}}}`)
}

// With the NATS server down every mailbox command fails at once, exit 1,
// with one line naming the server and the key to fix; completion offers
// nothing and succeeds.
func TestNATSServerDown(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	url := closedURL(t)
	s.global = []string{"--config", natsConf(s, url, "")}
	want := "connect to NATS at " + url + " (channels.mailbox.nats.url): "
	for _, args := range [][]string{
		{"agents"}, {"agents", "--json"}, {"agents", "--by-role"}, {"inbox", "coder"}, {"thread", "x"},
		{"pending"}, {"log"}, {"watch"}, {"recv", "coder"}, {"send", "--from", "lead", "--to", "coder", "--text", "hi"},
	} {
		assertOneLineError(t, s.run(args...), 1, want)
	}
	got, directive := s.complete("inbox", "")
	assert.Empty(t, got)
	assert.Equal(t, noFiles, directive)
}

// A server that takes the connection and never answers: a command fails
// after channels.mailbox.nats.connectTimeout, and completion gives up
// after a few seconds whatever that timeout (it would otherwise outlast
// the test's wait limit).
func TestNATSServerSilent(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	url := silentURL(t)
	s.global = []string{"--config", natsConf(s, url, `"connectTimeout": 1`)}
	assertOneLineError(t, s.run("agents"), 1, "connect to NATS at "+url)

	s.global = []string{"--config", natsConf(s, url, fmt.Sprintf(`"connectTimeout": %d`, int((3*testkit.WaitLimit).Seconds())))}
	got, directive := s.complete("inbox", "")
	assert.Empty(t, got)
	assert.Equal(t, noFiles, directive)
}

// watch with credentials that may not subscribe to every inbox fails at
// once, exit 1, with one line saying what it needs.
func TestNATSWatchNeedsPermission(t *testing.T) {
	t.Parallel()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, NoLog: true, NoSigs: true,
		Users: []*server.User{{Username: "coder", Password: "secret", Permissions: &server.Permissions{
			Publish:   &server.SubjectPermission{Allow: []string{">"}},
			Subscribe: &server.SubjectPermission{Allow: []string{"mailbox.coder.>", "_INBOX.>"}},
		}}}})
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(testkit.WaitLimit), "nats-server did not start")
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })

	s := newSandbox(t)
	s.global = []string{"--config", natsConf(s, srv.ClientURL(), `"user": "coder", "password": "secret"`)}
	r := s.run("watch")
	assertOneLineError(t, r, 1, "watching needs permission to subscribe to mailbox.*.inbox.* and mailbox.*.priority.*")
	assert.True(t, strings.HasPrefix(r.stderr, "switchboard: watch: NATS at "+srv.ClientURL()), r.stderr)
}

// startNATSOn starts a nats-server with JetStream storing in dir, on port
// (server.RANDOM_PORT: any), until the test ends or it is shut down.
func startNATSOn(t *testing.T, port int, dir string) *server.Server {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir,
		MaxPayload: 4 << 20, NoLog: true, NoSigs: true})
	require.NoError(t, err)
	go srv.Start()
	require.True(t, srv.ReadyForConnections(testkit.WaitLimit), "nats-server did not start")
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv
}

// watch on NATS says on stderr when it loses the server and when it is
// back, keeps running, and shows what is sent once it is back.
func TestNATSWatchServerLost(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := startNATSOn(t, server.RANDOM_PORT, dir)
	url := srv.ClientURL()
	port := srv.Addr().(*net.TCPAddr).Port
	s := newSandbox(t)
	s.global = []string{"--config", natsConf(s, url, "")}
	watch := s.start("watch")
	watch.awaitStderr("watching every inbox on NATS at " + url)

	srv.Shutdown()
	srv.WaitForShutdown()
	watch.awaitStderr("switchboard: lost the connection to NATS at " + url)
	startNATSOn(t, port, dir)
	watch.awaitStderr("switchboard: connected to NATS at " + url + " again")
	s.sendID("--from", "lead", "--to", "coder", "--text", "after the outage")
	assert.Regexp(t, `^\d\d:\d\d:\d\d lead \(unverified\) → coder after the outage$`, watch.next(watch.stdout, "watch"))
	watch.signal(os.Interrupt)
	require.Equal(t, 0, watch.wait(), watch.stderrSoFar())
}

// muteJetStreamURL returns the URL of a server that speaks the NATS
// handshake (INFO, PONG) and answers no request, as a server whose
// JetStream is down (a cluster without a quorum) does.
func muteJetStreamURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				_, _ = fmt.Fprintf(c, `INFO {"server_id":"mute","version":"2.10.0","proto":1,"headers":true,"max_payload":1048576}`+"\r\n")
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					if strings.HasPrefix(sc.Text(), "PING") {
						_, _ = io.WriteString(c, "PONG\r\n")
					}
				}
			})
		}
	})
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "nats://" + l.Addr().String()
}

// A host whose NATS server is down, or takes connections while its
// JetStream does not answer, fails to start with one line that names the
// server and the key once.
func TestRunNATSDown(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, url, more, want string
	}{
		{"server down", closedURL(t), "", " (channels.mailbox.nats.url): nats: no servers available for connection"},
		{"JetStream mute", muteJetStreamURL(t), `"connectTimeout": 1`,
			" (channels.mailbox.nats.url): the server took the connection but its JetStream did not answer within 11s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			keys := fmt.Sprintf(`"url": %q`, tt.url)
			if tt.more != "" {
				keys += ", " + tt.more
			}
			conf := s.writeConfig("host.json", `{"channels": {"mailbox": {"enabled": true, "agentId": "host", "backend": "nats", "nats": {`+keys+`}}}}`)
			r := s.run("--config", conf, "run")
			assertOneLineError(t, r, 1, tt.url+tt.want)
			assert.Equal(t, 1, strings.Count(r.stderr, tt.url), "the server is named once: %s", r.stderr)
		})
	}
}
