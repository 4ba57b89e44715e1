package layers_test

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const mod = "github.com/switchboard-dev/switchboard"

// imports returns, for every package of the module, the module's packages
// it imports (not its tests').
func imports(t *testing.T) map[string][]string {
	t.Helper()
	touchSources(t)
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"/...").Output()
	require.NoError(t, err, "go list")
	all := map[string][]string{}
	for sc := bufio.NewScanner(bytes.NewReader(out)); sc.Scan(); {
		f := strings.Fields(sc.Text())
		var own []string
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, mod+"/") {
				own = append(own, strings.TrimPrefix(imp, mod+"/"))
			}
		}
		all[strings.TrimPrefix(f[0], mod+"/")] = own
	}
	return all
}

// deps returns every module package pkg depends on, directly or not.
func deps(all map[string][]string, pkg string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, d := range all[p] {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(pkg)
	var out []string
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// TestImportsPointDown checks the rules of docs/architecture.md.
func TestImportsPointDown(t *testing.T) {
	all := imports(t)
	require.Contains(t, all, "channels/mailbox")
	require.Contains(t, all, "agentloop")
	for pkg, imps := range all {
		for _, imp := range imps {
			switch {
			case imp == "channels/mailbox/store/driver" && !under(pkg, "channels/mailbox/store"):
				t.Errorf("%s imports the driver contract %s: only the store facade and its backends do; use store.Store", pkg, imp)
			case under(pkg, "channels/mailbox") && pkg != "channels/mailbox" && imp == "channels/mailbox":
				t.Errorf("%s imports its parent channels/mailbox: a part of the mailbox sits below the channel", pkg)
			case under(pkg, "channels/mailbox/store") && under(imp, "channels/mailbox") &&
				!under(imp, "channels/mailbox/store") && imp != "channels/mailbox/envelope" && imp != "internal/mailbox/audit":
				t.Errorf("%s imports %s: a backend or the store contract needs only envelope, audit and store", pkg, imp)
			case under(pkg, "internal/mailbox/meta") && imp != "channels/mailbox/envelope":
				t.Errorf("%s imports %s: meta is a leaf over the wire format", pkg, imp)
			case (pkg == "bus" || under(pkg, "clock") || pkg == "config") && !under(imp, "clock"):
				t.Errorf("%s imports %s: it is at the bottom of the layers", pkg, imp)
			case under(imp, "a2a") && !under(pkg, "a2a") && !under(pkg, "cmd"):
				t.Errorf("%s imports the A2A gateway %s: a module, which the program picks (cmd/switchboard/main.go)", pkg, imp)
			case under(pkg, "a2a") && (under(imp, "agentloop") || isChannel(imp) && imp != "channels/mailbox" && !under(imp, "a2a")):
				t.Errorf("%s imports %s: the A2A gateway runs mailbox identities, no agent loop and no other channel", pkg, imp)
			case under(imp, "internal/cli") && !under(pkg, "cmd") && !under(pkg, "internal/cli"):
				t.Errorf("%s imports the command line %s", pkg, imp)
			case under(imp, "host") && !under(pkg, "internal/cli") && !under(pkg, "cmd") && !under(pkg, "host") && !under(pkg, "observe") && !under(pkg, "examples") && !under(pkg, "bench") &&
				pkg != "internal/channelhost": // the channels' tests run a host in a second process with it; only tests import it
				t.Errorf("%s imports host, which sits above it", pkg)
			case imp == "internal/channelhost":
				t.Errorf("%s imports internal/channelhost, which only tests may import", pkg)
			case under(imp, "observe") && !under(pkg, "internal/cli") && !under(pkg, "cmd") && !under(pkg, "observe"):
				t.Errorf("%s imports %s: observe sits above host, below the command line", pkg, imp)
			}
		}
	}
	for pkg, imps := range all {
		for _, imp := range imps {
			if under(imp, "examples") && !under(pkg, "examples") {
				t.Errorf("%s imports %s: nothing outside examples/ imports an example", pkg, imp)
			}
		}
		if !under(pkg, "agentloop") && pkg != "channels" {
			continue
		}
		for _, d := range deps(all, pkg) {
			if strings.HasPrefix(d, "channels/") || under(d, "internal/mailbox") {
				t.Errorf("%s depends on %s: the agent loop and package channels know no channel (a channel offers the loop "+
					"what it needs through interfaces the loop declares)", pkg, d)
			}
		}
	}
	for _, d := range deps(all, "host") {
		if isChannel(d) {
			t.Errorf("host depends on the channel %s: the program picks the channel types, host finds what they offer the loop", d)
		}
	}
	for _, d := range deps(all, "channels/mailbox") {
		if isBackend(d) {
			t.Errorf("the mailbox channel depends on the backend %s: backends register themselves", d)
		}
	}
}

// isChannel reports whether pkg is a channel type's package: a child of
// channels/ (channels/mailbox, and the chat platforms to come), or the
// demo's Feishu stub, or the A2A gateway.
func isChannel(pkg string) bool {
	rest, ok := strings.CutPrefix(pkg, "channels/")
	return ok && !strings.Contains(rest, "/") || pkg == "internal/feishustub" || under(pkg, "a2a")
}

// isBackend reports whether pkg is a mailbox backend (or one's helper).
func isBackend(pkg string) bool {
	for _, b := range []string{"fsstore", "natsstore", "memstore"} {
		if under(pkg, "channels/mailbox/store/"+b) {
			return true
		}
	}
	return false
}

// touchSources stats every Go file of the module, so that the test cache
// (which notes the files a test looks at, not those go list reads) runs
// this test again whenever one changes.
func touchSources(t *testing.T) {
	t.Helper()
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	require.NoError(t, err)
	err = filepath.WalkDir(strings.TrimSpace(string(root)), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || strings.HasSuffix(path, ".go") {
			_, err = os.Stat(path) // a folder's time changes when a file is added
		}
		return err
	})
	require.NoError(t, err)
}
