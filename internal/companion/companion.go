package companion

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// The companion programs, by file name without ".exe".
const (
	// Name is switchboard-full, which runs what switchboard hands over.
	Name = "switchboard-full"
	// NATSD is switchboard-natsd, the NATS server of demo --backend nats.
	NATSD = "switchboard-natsd"
)

// modulePath is the module switchboard-full is built from.
const modulePath = "github.com/switchboard-dev/switchboard"

// ErrNotFound is returned by Locate when the program is nowhere.
var ErrNotFound = errors.New("not found beside switchboard nor on PATH: install switchboard with its companions with go install ./cmd/... in a clone of the repository, or go install " + modulePath + "/cmd/...@latest")

// Locate returns the path of switchboard-full: see LocateProgram.
func Locate(ctx context.Context, self string) (string, error) {
	return LocateProgram(ctx, self, Name)
}

// LocateProgram returns the path of the companion program name (Name,
// NATSD): beside self (the running program's path); else, when self was
// built by go run from this module, one built beside self from the same
// source; else the one on PATH. The error wraps ErrNotFound.
func LocateProgram(ctx context.Context, self, name string) (string, error) {
	exe := name
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	beside := filepath.Join(filepath.Dir(self), exe)
	if isFile(beside) {
		return beside, nil
	}
	if builtByGoRun(self) {
		build := exec.CommandContext(ctx, "go", "build", "-o", beside, modulePath+"/cmd/"+name)
		out, err := build.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("%s %w (go build of it beside go run's program failed: %v: %s)", name, ErrNotFound, err, strings.TrimSpace(string(out)))
		}
		return beside, nil
	}
	if p, err := exec.LookPath(exe); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%s %w", name, ErrNotFound)
}

// builtByGoRun reports whether self looks like a program that go run
// built from this module: the module is its main module and it sits in a
// go-build temporary folder.
func builtByGoRun(self string) bool {
	info, ok := debug.ReadBuildInfo()
	if !ok || info.Main.Path != modulePath {
		return false
	}
	return strings.Contains(filepath.ToSlash(self), "/go-build")
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
