package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// maxRSS returns the process's peak resident set size in bytes: VmHWM of
// /proc/self/status. (getrusage's ru_maxrss is no use here: a process
// started by exec inherits the peak of the address space it replaced,
// which is its parent's.)
func maxRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// fsTypes names common file-system magic numbers of statfs(2).
var fsTypes = map[int64]string{
	0xEF53: "ext4", 0x58465342: "xfs", 0x9123683E: "btrfs", 0x01021994: "tmpfs",
	0x794C7630: "overlayfs", 0x6969: "nfs", 0x2FC12FC1: "zfs", 0xF2F52010: "f2fs",
}

// fsType names the file system that holds dir.
func fsType(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return "unknown"
	}
	if name, ok := fsTypes[int64(st.Type)]; ok {
		return name
	}
	return fmt.Sprintf("0x%X", st.Type)
}

// syncAll asks the kernel to write out every dirty page (sync(2)).
func syncAll() { syscall.Sync() }
