//go:build unix

package fsstore

import (
	"fmt"
	"net"
	"path/filepath"
	"runtime"
	"syscall"
	"time"
)

// maxSockPath is the longest socket path every unix takes (sun_path is
// 104 bytes on the BSDs and macOS, 108 on linux, with the NUL).
const maxSockPath = 103

// shareAddr returns the address of root's socket and what to call once
// it was used. A path too long for a socket address is reached on linux
// through the root's open folder, /proc/self/fd/N/_watch.sock; elsewhere
// the root is not shared (errNoShare).
func shareAddr(root string) (string, func(), error) {
	path := filepath.Join(root, watchSockName)
	if len(path) <= maxSockPath {
		return path, func() {}, nil
	}
	if runtime.GOOS != "linux" {
		return "", nil, fmt.Errorf("%w: the socket path %s is too long", errNoShare, path)
	}
	fd, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", fd, watchSockName), func() { syscall.Close(fd) }, nil
}

// listenShare listens on root's socket. The listener does not remove the
// socket when closed (its address may be a /proc path that no longer
// names the root): shareServer.stop does.
func listenShare(root string) (*net.UnixListener, error) {
	addr, done, err := shareAddr(root)
	if err != nil {
		return nil, err
	}
	defer done()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		return nil, err
	}
	ln.SetUnlinkOnClose(false)
	return ln, nil
}

// dialShareConn connects to root's socket.
func dialShareConn(root string) (net.Conn, error) {
	addr, done, err := shareAddr(root)
	if err != nil {
		return nil, err
	}
	defer done()
	d := net.Dialer{Timeout: time.Second}
	return d.Dial("unix", addr)
}
