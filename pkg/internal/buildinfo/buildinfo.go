// Package buildinfo says which build of codemode is running: the module version, the VCS
// revision and time, and the Go toolchain and platform, read from the binary's own build
// information (runtime/debug.ReadBuildInfo). Both programs print it for --version and the host
// logs it when it starts, so a user can prove which host ran.
package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is what a binary knows about its build. A field the build did not record is "".
type Info struct {
	// Version is the main module's version: a tag or pseudo-version for `go install …@version`
	// and for builds with VCS stamping, "(devel)" for a local build without it.
	Version string
	// Revision is the VCS commit the binary was built from.
	Revision string
	// Time is the commit's time (RFC 3339), not the build's: the same commit builds the same bytes.
	Time string
	// Dirty reports uncommitted changes in the working tree at build time.
	Dirty bool
	// GoVersion is the toolchain that built the binary (go1.26.8).
	GoVersion string
	// GOOS and GOARCH are the platform the binary runs on.
	GOOS, GOARCH string
}

// revisionLength is how many hex digits of the revision are shown, as `git log --abbrev=12`.
const revisionLength = 12

// Read returns the running binary's build information. It never fails: a binary without build
// information (or without VCS stamping, as with -buildvcs=false) reports what it has.
func Read() Info {
	info := Info{GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	return fromBuildInfo(bi, info)
}

// fromBuildInfo fills info from bi.
func fromBuildInfo(bi *debug.BuildInfo, info Info) Info {
	info.Version = bi.Main.Version
	if bi.GoVersion != "" {
		info.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Dirty = s.Value == "true"
		case "GOOS":
			info.GOOS = s.Value
		case "GOARCH":
			info.GOARCH = s.Value
		}
	}
	return info
}

// ShortRevision is the revision's first 12 hex digits, with "+dirty" when the tree had
// uncommitted changes; "" without VCS information.
func (i Info) ShortRevision() string {
	if i.Revision == "" {
		return ""
	}
	r := i.Revision
	if len(r) > revisionLength {
		r = r[:revisionLength]
	}
	if i.Dirty {
		r += "+dirty"
	}
	return r
}

// VersionOrUnknown is Version, or "unknown" for a binary without build information.
func (i Info) VersionOrUnknown() string {
	if i.Version == "" {
		return "unknown"
	}
	return i.Version
}

// Line is the --version line of program: `PROGRAM VERSION (REVISION[+dirty], TIME) GO OS/ARCH`;
// the parenthesis is left out when the build recorded no VCS information.
func (i Info) Line(program string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", program, i.VersionOrUnknown())
	if vcs := i.vcs(); vcs != "" {
		fmt.Fprintf(&b, " (%s)", vcs)
	}
	fmt.Fprintf(&b, " %s %s/%s", i.GoVersion, i.GOOS, i.GOARCH)
	return b.String()
}

// vcs is "REVISION[+dirty], TIME", or the part of it the build recorded.
func (i Info) vcs() string {
	var parts []string
	if r := i.ShortRevision(); r != "" {
		parts = append(parts, r)
	}
	if i.Time != "" {
		parts = append(parts, i.Time)
	}
	return strings.Join(parts, ", ")
}
