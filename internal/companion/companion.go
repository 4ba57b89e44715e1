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

// Name is the file name of the companion program, without ".exe".
const Name = "switchboard-full"

// modulePath is the module switchboard-full is built from.
const modulePath = "github.com/switchboard-dev/switchboard"

// ErrNotFound is returned by Locate when switchboard-full is nowhere.
var ErrNotFound = errors.New(Name + " not found beside switchboard nor on PATH: install both with go install ./cmd/... in a clone of the repository, or go install " + modulePath + "/cmd/...@latest")

// Locate returns the path of switchboard-full: beside self (the running
// program's path); else, when self was built by go run from this module,
// one built beside self from the same source; else the one on PATH.
func Locate(ctx context.Context, self string) (string, error) {
	exe := Name
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	beside := filepath.Join(filepath.Dir(self), exe)
	if isFile(beside) {
		return beside, nil
	}
	if builtByGoRun(self) {
		build := exec.CommandContext(ctx, "go", "build", "-o", beside, modulePath+"/cmd/"+Name)
		out, err := build.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("%w (go build of it beside go run's switchboard failed: %v: %s)", ErrNotFound, err, strings.TrimSpace(string(out)))
		}
		return beside, nil
	}
	if p, err := exec.LookPath(exe); err == nil {
		return p, nil
	}
	return "", ErrNotFound
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
