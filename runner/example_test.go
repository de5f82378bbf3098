package runner_test

import (
	"context"
	"fmt"
	"os"

	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
)

// Run a scenario from Go, as `llmload run` does: load the file, run the
// scenario, read the result and the verdict. This one runs 24 requests
// against the built-in simulator and writes no files (Out is empty).
func Example() {
	cfg, diags := scenario.Load([]string{"testdata/example.hcl"}, scenario.LoadOptions{})
	if diags.HasErrors() {
		cfg.WriteDiagnostics(os.Stderr, diags, scenario.Verbose)
		return
	}
	s := cfg.Scenarios[0]
	run, status, diags := runner.RunScenario(context.Background(), s, runner.Options{Quiet: true})
	if run == nil {
		cfg.WriteDiagnostics(os.Stderr, diags, scenario.Verbose)
		fmt.Println("no result:", status)
		return
	}
	defer run.Close()
	verdict := run.Verdict() // judges the checks, validity and how the run ended
	if st := run.Save(); st != runner.StatusOK {
		verdict = st
	}
	fmt.Printf("%s: %d of %d requests completed\n", s.Name, run.Result.Completed, s.Requests)
	for _, c := range run.Result.Checks {
		fmt.Printf("%s %s\n", c.Name, c.Verdict)
	}
	fmt.Println("verdict:", verdict == runner.StatusOK)
	// Output:
	// smoke: 24 of 24 requests completed
	// ttft_p90 pass
	// error_rate pass
	// output_defect_rate pass
	// verdict: true
}
