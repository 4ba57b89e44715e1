package full

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// natsStartLimit bounds the start of the embedded nats-server.
const natsStartLimit = 20 * time.Second

// natsPingTimeout bounds the connection to a server named by --nats-url.
const natsPingTimeout = 5 * time.Second

// startNATS starts a nats-server with JetStream on a free port of
// 127.0.0.1, storing in dir. It leaves signals to the demo.
func startNATS(dir string) (string, func(), error) {
	srv, err := server.NewServer(&server.Options{
		ServerName: "switchboard-demo", Host: "127.0.0.1", Port: server.RANDOM_PORT,
		JetStream: true, StoreDir: dir, MaxPayload: 4 << 20, NoLog: true, NoSigs: true,
	})
	if err != nil {
		return "", nil, fmt.Errorf("embedded nats-server: %w", err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(natsStartLimit) {
		srv.Shutdown()
		srv.WaitForShutdown()
		return "", nil, fmt.Errorf("embedded nats-server: not ready within %s", natsStartLimit)
	}
	return srv.ClientURL(), func() { srv.Shutdown(); srv.WaitForShutdown() }, nil
}

// pingNATS connects to the server at url and disconnects.
func pingNATS(url string) error {
	nc, err := nats.Connect(url, nats.Name("switchboard demo"), nats.Timeout(natsPingTimeout))
	if err != nil {
		return err
	}
	nc.Close()
	return nil
}
