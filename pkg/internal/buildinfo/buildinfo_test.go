package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestLineNamesVersionRevisionTimeGoAndPlatform(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/codemodehq/codemode", Version: "v0.4.0"},
		Settings: []debug.BuildSetting{
			{Key: "GOOS", Value: "windows"},
			{Key: "GOARCH", Value: "arm64"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "cde79d0aa1b2c3d4e5f60718293a4b5c6d7e8f90"},
			{Key: "vcs.time", Value: "2026-12-06T03:28:14Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	got := fromBuildInfo(bi, Info{}).Line("codemode-host")
	want := "codemode-host v0.4.0 (cde79d0aa1b2+dirty, 2026-12-06T03:28:14Z) go1.26.8 windows/arm64"
	if got != want {
		t.Fatalf("Line = %q\nwant   %q", got, want)
	}
}

// A build without VCS stamping (-buildvcs=false, or outside a repository) leaves the parenthesis
// out instead of printing empty fields.
func TestLineWithoutVCSInformation(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}
	got := fromBuildInfo(bi, Info{GOOS: "linux", GOARCH: "amd64"}).Line("codemode")
	if want := "codemode (devel) go1.26.8 linux/amd64"; got != want {
		t.Fatalf("Line = %q, want %q", got, want)
	}
	clean := fromBuildInfo(&debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}}, Info{})
	if clean.ShortRevision() != "abc" || clean.VersionOrUnknown() != "unknown" {
		t.Fatalf("short revision %q, version %q", clean.ShortRevision(), clean.VersionOrUnknown())
	}
}

// The test binary has build information; Read reports the running toolchain and platform.
func TestReadReportsTheRunningBinary(t *testing.T) {
	i := Read()
	if i.GoVersion != runtime.Version() || i.GOOS != runtime.GOOS || i.GOARCH != runtime.GOARCH {
		t.Fatalf("Read = %+v, want %s %s/%s", i, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	}
}
