package testshared

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	// RequireEnv turns a skip for missing shared data into a failure when
	// set to anything but "" or "0".
	RequireEnv = "LLMLOAD_REQUIRE_SHARED"
	// SkipLogEnv names a file to which each skip appends a line.
	SkipLogEnv = "LLMLOAD_SHARED_SKIPLOG"
)

// Required reports whether missing shared data must fail the tests.
func Required() bool {
	v := os.Getenv(RequireEnv)
	return v != "" && v != "0"
}

// Root returns the repository root: the nearest folder, from the working
// directory up, that holds go.mod.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Dir returns the shared folder (../shared from the repository root), or
// skips the test (fails it under LLMLOAD_REQUIRE_SHARED) when it is absent.
func Dir(t testing.TB) string {
	t.Helper()
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "..", "shared")
	if _, err := os.Stat(dir); err != nil {
		Skipf(t, "%v", err)
	}
	return dir
}

// Path returns a file or folder inside the shared folder, given as a path
// relative to it ("data", "tokenizers", ...), after checking that it exists;
// otherwise it skips the test as Dir does.
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{Dir(t)}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		Skipf(t, "%v", err)
	}
	return p
}

// Skipf skips the test because shared data is missing, saying so, and
// records the skip; under LLMLOAD_REQUIRE_SHARED it fails the test instead.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s: ../shared data is missing and %s is set (CI must have it): %s", t.Name(), RequireEnv, msg)
	}
	record(t.Name(), msg)
	t.Skipf("%s (../shared is absent in this checkout; skipped, a failure under %s=1)", msg, RequireEnv)
}

// Missing is for tests that use shared data only as extra material when
// it is there: it does nothing locally, and fails the test under
// LLMLOAD_REQUIRE_SHARED when err (from reading that data) is not nil.
func Missing(t testing.TB, err error) {
	t.Helper()
	if err != nil && Required() {
		t.Fatalf("../shared data is missing and %s is set (CI must have it): %v", RequireEnv, err)
	}
}

func record(name, msg string) {
	path := os.Getenv(SkipLogEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	wd, _ := os.Getwd()
	fmt.Fprintf(f, "%s %s: %s\n", filepath.Base(wd), name, strings.ReplaceAll(msg, "\n", " "))
}
