package buildinfo

import (
	"runtime/debug"
)

// Unstamped are the values of the -ldflags variables when a build did not
// set them (main.version and main.commit).
const (
	UnstampedVersion = "dev"
	UnstampedCommit  = "none"
)

// Info identifies a build of llmload.
type Info struct {
	// Version is the release ("v1.2.3", or git describe's "v1.2.3-4-gabc"),
	// Go's pseudo-version of a checkout build
	// ("v0.0.0-20261201100000-abcdef123456+dirty"), "dev-abcdef123456"
	// when only the revision is known, or "dev" when nothing is.
	Version string
	// Commit is the VCS revision, "" when unknown.
	Commit string
	// Modified: the revision had uncommitted changes (known only from
	// Go's VCS stamp).
	Modified bool
}

// Read returns the running binary's Info from the -ldflags values (which
// win when set) and Go's build information.
func Read(ldVersion, ldCommit string) Info {
	bi, _ := debug.ReadBuildInfo()
	return From(ldVersion, ldCommit, bi)
}

// From is Read over given build information (nil: none).
func From(ldVersion, ldCommit string, bi *debug.BuildInfo) Info {
	var i Info
	var revision string
	if bi != nil {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				i.Modified = s.Value == "true"
			}
		}
	}
	switch {
	case ldCommit != "" && ldCommit != UnstampedCommit:
		// -ldflags stamped it (make build): its version says whether the
		// tree was dirty (git describe --dirty).
		i.Commit, i.Modified = ldCommit, false
	default:
		i.Commit = revision
	}
	switch {
	case ldVersion != "" && ldVersion != UnstampedVersion:
		i.Version = ldVersion
	case bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)":
		i.Version = bi.Main.Version
	case revision != "":
		i.Version = UnstampedVersion + "-" + short(revision)
		if i.Modified {
			i.Version += "-dirty"
		}
	default:
		i.Version = UnstampedVersion
	}
	return i
}

// short is a revision's first 12 characters, as Go's pseudo-versions and
// make's COMMIT have it.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
