package cli

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// natsStartLimit bounds the start of the embedded nats-server.
const natsStartLimit = 20 * time.Second

// startDemoNATS starts a nats-server with JetStream on a free port of
// 127.0.0.1, storing in dir. It leaves signals to the demo.
func startDemoNATS(dir string) (*server.Server, error) {
	srv, err := server.NewServer(&server.Options{
		ServerName: "switchboard-demo", Host: "127.0.0.1", Port: server.RANDOM_PORT,
		JetStream: true, StoreDir: dir, MaxPayload: 4 << 20, NoLog: true, NoSigs: true,
	})
	if err != nil {
		return nil, fmt.Errorf("embedded nats-server: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(natsStartLimit) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return nil, fmt.Errorf("embedded nats-server: not ready within %s", natsStartLimit)
	}
	return srv, nil
}

// sortLines orders transcript lines by time, then kind.
func sortLines(lines []demoLine) {
	slices.SortStableFunc(lines, func(a, b demoLine) int {
		return cmp.Or(a.at.Compare(b.at), strings.Compare(a.via, b.via))
	})
}
