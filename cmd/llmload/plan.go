package main

import (
	"context"
	"fmt"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
)

func cmdPlan(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "plan", "PATH...")
	var cf configFlags
	cf.register(fs)
	name := fs.String("scenario", "", "plan only the scenario with this `name`")
	showRequest := fs.Bool("show-request", false, "print the first request of each scenario exactly as it will be sent (credentials redacted)")
	cfg, code := parseAndLoad(e, fs, &cf, args)
	if cfg == nil {
		return code
	}
	scenarios, code := selectScenarios(e, cfg, *name)
	if scenarios == nil {
		return code
	}
	if code := checkFiles(e, cfg, scenarios); code != exitOK {
		return code
	}
	// Datasets are sampled once each, offline: plan sends nothing. A
	// scenario whose seed samples a dataset has its own copy of it.
	loaded := map[*scenario.Dataset]*dataset.Dataset{}
	for i, s := range scenarios {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		ds, ok := loaded[s.Dataset]
		if !ok {
			var err error
			ds, _, err = runner.LoadDatasetOffline(s.Dataset)
			if err != nil {
				fmt.Fprintf(e.stderr, "llmload: dataset %q: %v\n", s.Dataset.Name, err)
				return exitInvalid
			}
			loaded[s.Dataset] = ds
		}
		runner.WritePlan(e.stdout, cfg, s, ds)
		if *showRequest {
			if err := runner.WriteRequestPlan(e.stdout, s, ds); err != nil {
				fmt.Fprintf(e.stderr, "llmload: scenario %q: %v\n", s.Name, err)
				return exitInvalid
			}
		}
	}
	return exitOK
}
