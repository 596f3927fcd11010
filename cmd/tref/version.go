package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// buildVersion is tref's version, set by releases at link time:
// go build -ldflags "-X main.buildVersion=v0.1.0" ./cmd/tref
var buildVersion = "devel"

// version prints the version, the commit when the build recorded it, and
// the Go toolchain and platform.
func (c *cli) version() int {
	v := buildVersion
	rev := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "devel" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && len(s.Value) >= 12:
				rev = s.Value[:12] + " " + rev
			case s.Key == "vcs.modified" && s.Value == "true":
				rev += "(modified) "
			}
		}
	}
	fmt.Fprintf(c.stdout, "tref %s %s%s %s/%s\n", v, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
