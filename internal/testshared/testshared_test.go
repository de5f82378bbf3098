package testshared

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeTB records how a test would have ended. Skipf and Fatalf stop the
// calling goroutine, as the real ones do.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()      {}
func (f *fakeTB) Name() string { return "TestFake" }
func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

// call runs fn on a fresh fakeTB in its own goroutine, so that Goexit
// ends only that goroutine.
func call(fn func(tb testing.TB)) *fakeTB {
	f := &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	<-done
	return f
}

func TestSkipf(t *testing.T) {
	tests := []struct {
		name     string
		require  string
		wantSkip bool
		wantFail bool
		wantLog  int
	}{
		{"locally a skip, recorded", "", true, false, 1},
		{"0 is off", "0", true, false, 1},
		{"under CI a failure", "1", false, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "skips.log")
			t.Setenv(RequireEnv, tt.require)
			t.Setenv(SkipLogEnv, log)
			f := call(func(tb testing.TB) { Skipf(tb, "reading %s: no such file", "x.json") })
			if got := f.skipped != ""; got != tt.wantSkip {
				t.Errorf("skipped = %v (%q), want %v", got, f.skipped, tt.wantSkip)
			}
			if got := f.failed != ""; got != tt.wantFail {
				t.Errorf("failed = %v (%q), want %v", got, f.failed, tt.wantFail)
			}
			for _, msg := range []string{f.skipped, f.failed} {
				if msg != "" && !strings.Contains(msg, "x.json") {
					t.Errorf("message %q does not say what is missing", msg)
				}
			}
			data, _ := os.ReadFile(log)
			lines := strings.Count(string(data), "\n")
			if lines != tt.wantLog {
				t.Errorf("skip log has %d lines, want %d:\n%s", lines, tt.wantLog, data)
			}
		})
	}
}

func TestMissing(t *testing.T) {
	tests := []struct {
		name     string
		require  string
		err      error
		wantFail bool
	}{
		{"present", "1", nil, false},
		{"absent locally", "", os.ErrNotExist, false},
		{"absent under CI", "1", os.ErrNotExist, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(RequireEnv, tt.require)
			f := call(func(tb testing.TB) { Missing(tb, tt.err) })
			if got := f.failed != ""; got != tt.wantFail {
				t.Errorf("failed = %v (%q), want %v", got, f.failed, tt.wantFail)
			}
		})
	}
}

func TestPath(t *testing.T) {
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("Root() = %s, which has no go.mod", root)
	}
	t.Setenv(RequireEnv, "")
	t.Setenv(SkipLogEnv, "")
	f := call(func(tb testing.TB) { Path(tb, "no-such-folder-here") })
	if f.skipped == "" && f.failed == "" {
		t.Fatal("Path of a missing file neither skipped nor failed")
	}
	if diff := cmp.Diff("", f.failed); diff != "" {
		t.Errorf("a missing file failed the test locally (-want +got):\n%s", diff)
	}
}
