package layers_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heavy are the packages that switchboard must not link: Go initialises
// every linked package before main, so each would slow every command and
// grow every agent's memory. They live in switchboard-full (cli.Extras).
var heavy = []string{
	"github.com/nats-io/",                     // the NATS client and the embedded server
	"github.com/openai/",                      // the LLM provider SDKs
	"github.com/anthropics/",                  //
	"github.com/modelcontextprotocol/",        // the MCP SDK
	"go.opentelemetry.io/otel/sdk",            // the span exporter
	"go.opentelemetry.io/otel/exporters",      //
	"google.golang.org/protobuf",              //
	"github.com/prometheus/",                  // a metrics client: serve metrics from switchboard-full
	mod + "/host",                             // the host and the agent loop
	mod + "/agentloop",                        //
	mod + "/internal/mcpserver",               //
	mod + "/channels/mailbox/store/natsstore", //
	mod + "/tracing/otlp",                     //
	mod + "/observe/metrics",                  //
	mod + "/internal/cli/full",                //
	mod + "/internal/cli/demo",                //
}

// TestSwitchboardIsThin checks that cmd/switchboard links none of the
// heavy packages, that switchboard-full does (but for the NATS server:
// it runs agents too), and that only switchboard-natsd links the server.
func TestSwitchboardIsThin(t *testing.T) {
	t.Parallel()
	thin := goDeps(t, mod+"/cmd/switchboard")
	for _, p := range thin {
		for _, h := range heavy {
			if p == h || strings.HasPrefix(p, h) && (strings.HasSuffix(h, "/") || strings.HasPrefix(p[len(h):], "/")) {
				t.Errorf("cmd/switchboard links %s (%s): move what uses it into switchboard-full (internal/cli/full)", p, h)
			}
		}
	}
	const server = "github.com/nats-io/nats-server/v2/server"
	full := strings.Join(goDeps(t, mod+"/cmd/switchboard-full"), "\n")
	for _, want := range []string{mod + "/host", mod + "/channels/mailbox/store/natsstore", mod + "/internal/mcpserver"} {
		assert.Contains(t, full, want, "switchboard-full links it")
	}
	assert.NotContains(t, full, server, "switchboard-full runs agents: the demo's server is switchboard-natsd")
	assert.Contains(t, goDeps(t, mod+"/cmd/switchboard-natsd"), server)
}

// goDeps lists the packages pkg depends on.
func goDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	require.NoError(t, err, "go list -deps %s", pkg)
	return strings.Fields(string(out))
}
