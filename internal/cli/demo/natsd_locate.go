package demo

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

// natsdName is the demo's NATS server program, without ".exe".
const natsdName = "switchboard-natsd"

// modulePath is the module switchboard-natsd is built from.
const modulePath = "github.com/switchboard-dev/switchboard"

// errNoNATSD is returned by locateNATSD when the server program is nowhere.
var errNoNATSD = errors.New(natsdName + " not found beside switchboard nor on PATH: install it with go install ./cmd/... in a clone of the repository, or go install " + modulePath + "/cmd/...@latest")

// locateNATSD returns the path of switchboard-natsd and what to call once
// it is no longer needed: the program beside self (the running program's
// path, where go install ./cmd/... and go build -o DIR/ ./cmd/... put it),
// else the one on PATH, else, with fromSource (this program was built from
// this module's source: go run ./cmd/switchboard in a clone), one built
// from the same source into a temporary folder that cleanup removes (the
// build cache makes that quick after the first time). The error wraps
// errNoNATSD.
func locateNATSD(ctx context.Context, self string, fromSource bool) (path string, cleanup func(), err error) {
	exe := natsdName
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	nothing := func() {}
	if beside := filepath.Join(filepath.Dir(self), exe); isFile(beside) {
		return beside, nothing, nil
	}
	if p, err := exec.LookPath(exe); err == nil {
		return p, nothing, nil
	}
	if !fromSource {
		return "", nil, errNoNATSD
	}
	dir, err := os.MkdirTemp("", natsdName+"-")
	if err != nil {
		return "", nil, fmt.Errorf("%w (and no folder to build it in: %v)", errNoNATSD, err)
	}
	path = filepath.Join(dir, exe)
	build := exec.CommandContext(ctx, "go", "build", "-o", path, modulePath+"/cmd/"+natsdName)
	if out, err := build.CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		if ctx.Err() != nil {
			return "", nil, fmt.Errorf("%w (go build of it from this program's source did not finish: %v)", errNoNATSD, context.Cause(ctx))
		}
		return "", nil, fmt.Errorf("%w (go build of it from this program's source failed: %v: %s)", errNoNATSD, err, strings.TrimSpace(string(out)))
	}
	return path, func() { _ = os.RemoveAll(dir) }, nil
}

// fromThisModule reports whether the running program was built from this
// module's source (go run or go build in a clone), rather than from
// another module that embeds the demo.
func fromThisModule() bool {
	info, ok := debug.ReadBuildInfo()
	return ok && info.Main.Path == modulePath
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
