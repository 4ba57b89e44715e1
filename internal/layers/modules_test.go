package layers_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Modules are the packages that register themselves by name when a
// program imports them: the LLM providers, the mailbox's backends and the
// channel types. The program picks them (cmd/switchboard/main.go); the
// library packages import none.

// isProvider reports whether pkg is an LLM provider package (the catalog
// of names is not one: it chooses, it speaks to no API).
func isProvider(pkg string) bool {
	return under(pkg, "agentloop/provider") && pkg != "agentloop/provider" && !under(pkg, "agentloop/provider/catalog")
}

// isChannelType reports whether pkg is a channel type's package.
func isChannelType(pkg string) bool {
	return pkg == "channels/mailbox" || pkg == "channels/terminal" || pkg == "channels/httpapi" || under(pkg, "examples") || under(pkg, "internal/feishustub")
}

// stillImported are the modules that a library package imports, by
// package: the command line's mailbox commands (send, recv, inbox, mcp,
// ...) are made of the mailbox channel, and the demo posts its user's
// question to the stand-in chat channel. Remove an entry once it is no
// longer needed: the test then holds the rule whole.
var stillImported = map[string][]string{
	"internal/cli": {"channels/mailbox", "internal/feishustub"},
}

// TestLibrariesImportNoModule checks that host and the command line link
// no provider, no backend (but the folder store, which --root opens) and
// no channel type: the program that runs them imports those.
func TestLibrariesImportNoModule(t *testing.T) {
	all := imports(t)
	for _, lib := range []string{"host", "internal/cli"} {
		for _, d := range deps(all, lib) {
			if slices.Contains(stillImported[lib], d) {
				continue
			}
			switch {
			case isProvider(d):
				t.Errorf("%s depends on the provider %s: the program imports providers (cmd/switchboard/main.go)", lib, d)
			case isBackend(d) && !(lib == "internal/cli" && under(d, "channels/mailbox/store/fsstore")):
				t.Errorf("%s depends on the backend %s: the program imports backends (cmd/switchboard/main.go)", lib, d)
			case isChannelType(d):
				t.Errorf("%s depends on the channel type %s: the program imports channel types (cmd/switchboard/main.go)", lib, d)
			}
		}
	}
}

// TestTheProgramPicksTheModules checks that cmd/switchboard links every
// module switchboard ships, and that only switchboard-natsd links the
// NATS server: the demo runs it as a program of its own, so that no agent
// process carries one.
func TestTheProgramPicksTheModules(t *testing.T) {
	t.Parallel()
	const server = "github.com/nats-io/nats-server/v2/server"
	program := goDeps(t, mod+"/cmd/switchboard")
	for _, want := range []string{"agentloop/provider/anthropic", "agentloop/provider/openai", "agentloop/provider/scripted",
		"channels/mailbox", "channels/mailbox/store/fsstore", "channels/mailbox/store/natsstore"} {
		assert.Contains(t, program, mod+"/"+want, "cmd/switchboard links it")
	}
	assert.NotContains(t, program, server, "switchboard runs agents: the demo's server is switchboard-natsd")
	assert.Contains(t, goDeps(t, mod+"/cmd/switchboard-natsd"), server)
}

// goDeps lists the packages pkg depends on.
func goDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	require.NoError(t, err, "go list -deps %s", pkg)
	return strings.Fields(string(out))
}
