package results_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/results/resultstest"
)

var update = flag.Bool("update", false, "rewrite golden files")

const msec = time.Millisecond

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// The fixtures shared with the tests of results (resultstest).
var (
	openLoopRun      = resultstest.OpenLoopRun
	openLoopRequests = resultstest.OpenLoopRequests
	closedLoopRun    = resultstest.ClosedLoopRun
	emptyRun         = resultstest.EmptyRun
	emptyRequests    = resultstest.EmptyRequests
	simKnobsRun      = resultstest.SimKnobsRun
	runs             = resultstest.Runs
	result           = resultstest.Result
	num              = resultstest.Num
	zero             = resultstest.Zero
	secret           = resultstest.Secret
)

type secretConfig = resultstest.SecretConfig
