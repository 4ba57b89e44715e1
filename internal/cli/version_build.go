package cli

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// buildVersion is what version prints: the program's version, and the Go
// toolchain, platform and VCS state it was built with (--json prints it
// as is).
type buildVersion struct {
	// Version is the version set at build time (-ldflags "-X
	// main.version=..."), else the main module's version as the go
	// command recorded it (a tag, or a pseudo-version of the revision),
	// else "dev".
	Version string `json:"version"`
	// Module is the main module's path ("" when the build recorded none).
	Module   string `json:"module"`
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	Revision string `json:"revision"` // vcs.revision: the commit, "" when not recorded
	Time     string `json:"time"`     // vcs.time: the commit's time (RFC 3339), "" when not recorded
	Modified bool   `json:"modified"` // vcs.modified: the tree had uncommitted changes
}

// newBuildVersion reads bi (when ok) for a program whose build set
// version ("" or "dev" when it did not).
func newBuildVersion(version string, bi *debug.BuildInfo, ok bool) buildVersion {
	v := buildVersion{Version: version, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if ok && bi != nil {
		v.Module = bi.Main.Path
		if (v.Version == "" || v.Version == "dev") && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	return v
}

// String is the human line: "switchboard VERSION GO OS/ARCH", then
// "(revision REV, TIME, modified)" when the build recorded a revision.
func (v buildVersion) String() string {
	var b strings.Builder
	b.WriteString("switchboard " + v.Version + " " + v.Go + " " + v.OS + "/" + v.Arch)
	if v.Revision != "" {
		b.WriteString(" (revision " + v.Revision[:min(12, len(v.Revision))])
		if v.Time != "" {
			b.WriteString(", " + v.Time)
		}
		if v.Modified {
			b.WriteString(", modified")
		}
		b.WriteString(")")
	}
	return b.String()
}
