package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// subject is one binary under measurement.
type subject struct {
	name string // how the report calls it: hello, switchboard, peer
	path string
}

// helloSource is the raw limit: a Go program that prints a line and exits.
const helloSource = `package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
`

// buildHello builds the hello-world program into dir with the go command
// on PATH (the toolchain that builds switchboard) and returns its path.
func buildHello(ctx context.Context, dir string) (string, error) {
	src := filepath.Join(dir, "hello-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module hello\n"), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(helloSource), 0o644); err != nil {
		return "", err
	}
	out := filepath.Join(dir, "hello")
	return out, goBuild(ctx, src, out, ".")
}

// buildSwitchboard builds every command of this module (./cmd/...) into
// dir/bin, as go install ./cmd/... would install them side by side, and
// returns the path of switchboard.
func buildSwitchboard(ctx context.Context, dir string) (string, error) {
	modDir, err := moduleDir(ctx)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	if err := goBuild(ctx, modDir, bin+string(filepath.Separator), "./cmd/..."); err != nil {
		return "", err
	}
	return filepath.Join(bin, "switchboard"+exeSuffix()), nil
}

// moduleDir is the root folder of the module the current directory is in.
func moduleDir(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run footprint inside the switchboard module (or give -bin)")
	}
	return filepath.Dir(mod), nil
}

// buildFlags are extra go build flags: the tests add -race when they run
// with it, so that the build reuses the packages go test compiled.
var buildFlags []string

// goBuild runs go build -o out pkg in dir.
func goBuild(ctx context.Context, dir, out, pkg string) error {
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"build"}, buildFlags...), "-o", out, pkg)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// exeSuffix is what names of executables end with on this platform.
func exeSuffix() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}

// size is the size of one binary on disk.
type size struct {
	subject
	bytes int64
}

// sizes stats every binary.
func sizes(subjects []subject) ([]size, error) {
	var out []size
	for _, s := range subjects {
		fi, err := os.Stat(s.path)
		if err != nil {
			return nil, err
		}
		out = append(out, size{s, fi.Size()})
	}
	return out, nil
}
