package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFrom(t *testing.T) {
	const rev = "778c5ef1b55c0113cd973fd8ec65bbc9fdc3a88f"
	vcs := func(version string, modified string) *debug.BuildInfo {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/llmload/llmload", Version: version}}
		if modified != "" {
			bi.Settings = []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
		}
		return bi
	}
	tests := []struct {
		name                string
		ldVersion, ldCommit string
		bi                  *debug.BuildInfo
		want                Info
	}{
		{"make build: -ldflags win", "v1.2.3-4-gabcdef1-dirty", "abcdef123456", vcs("v0.0.0-20261203205441-778c5ef1b55c+dirty", "true"),
			Info{Version: "v1.2.3-4-gabcdef1-dirty", Commit: "abcdef123456"}},
		{"go build in a checkout (Go 1.24 and later)", UnstampedVersion, UnstampedCommit, vcs("v0.0.0-20261203205441-778c5ef1b55c+dirty", "true"),
			Info{Version: "v0.0.0-20261203205441-778c5ef1b55c+dirty", Commit: rev, Modified: true}},
		{"go install @v1.2.3", UnstampedVersion, UnstampedCommit, vcs("v1.2.3", ""),
			Info{Version: "v1.2.3"}},
		{"a revision without a module version", UnstampedVersion, UnstampedCommit, vcs("(devel)", "false"),
			Info{Version: "dev-778c5ef1b55c", Commit: rev}},
		{"a modified revision without a module version", UnstampedVersion, UnstampedCommit, vcs("(devel)", "true"),
			Info{Version: "dev-778c5ef1b55c-dirty", Commit: rev, Modified: true}},
		{"go run, go test, -buildvcs=false", UnstampedVersion, UnstampedCommit, vcs("(devel)", ""),
			Info{Version: "dev"}},
		{"no build information", UnstampedVersion, UnstampedCommit, nil,
			Info{Version: "dev"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, From(tt.ldVersion, tt.ldCommit, tt.bi)); diff != "" {
				t.Errorf("Info (-want +got):\n%s", diff)
			}
		})
	}
}
