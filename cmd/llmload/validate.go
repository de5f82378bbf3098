package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
)

func cmdValidate(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "validate", "PATH...")
	var cf configFlags
	cf.register(fs)
	name := fs.String("scenario", "", "check only what the scenario with this `name` uses (the files are checked whole)")
	// The run flags that can make a scenario impossible: validate refuses
	// what run would refuse under them.
	var shard shardOptions
	shard.register(fs)
	baseline := fs.String("baseline", "", "check the scenarios as run against this baseline result `file` (an A/B scenario takes none)")
	paths, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if err := shard.resolve(os.Getenv); err != nil {
		return fs.usageError(err.Error())
	}
	configs, notes, err := scenario.Configurations(paths, *name)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload: %v\n", err)
		return exitInvalid
	}
	for _, n := range notes {
		fmt.Fprintf(e.stderr, "llmload: %s\n", n)
	}
	for _, paths := range configs {
		code = worse(code, validateConfig(e, paths, &cf, *name, shard, *baseline != ""))
	}
	return code
}

// validateConfig checks one configuration as cmdValidate says.
func validateConfig(e env, paths []string, cf *configFlags, name string, shard shardOptions, baseline bool) int {
	cfg, code := loadConfig(e, paths, cf)
	if cfg == nil {
		return code
	}
	var scenarios []*scenario.Scenario
	if name != "" {
		if scenarios, code = selectScenarios(e, cfg, name); scenarios == nil {
			return code
		}
	}
	if len(cmpScenarios(scenarios, cfg)) > 1 && shard.value().Active() {
		fmt.Fprintf(e.stderr, "llmload: -shard, -run-id, -start-at and -barrier apply to one scenario: choose it with -scenario (the configuration has %d)\n", len(cfg.Scenarios))
		return exitInvalid
	}
	var diags hcl.Diagnostics
	for _, s := range cmpScenarios(scenarios, cfg) {
		diags = append(diags, s.CheckRunFlags(shard.runFlags(baseline))...)
	}
	if diags.HasErrors() {
		writeDiags(e, cfg, diags)
		return exitInvalid
	}
	if code := validateLoads(e, cfg, scenarios); code != exitOK {
		return code
	}
	fmt.Fprintf(e.stdout, "Valid: %s: %d file(s), %d target(s), %d dataset(s), %d scenario(s).\n",
		strings.Join(paths, " "), len(cfg.Files), len(cfg.Targets), len(cfg.Datasets), len(cfg.Scenarios))
	return exitOK
}

// validateLoads checks the files and loads what a run of the scenarios
// would load (runner.CheckLoads), sending nothing.
func validateLoads(e env, cfg *scenario.Config, scenarios []*scenario.Scenario) int {
	if code := checkFiles(e, cfg, scenarios); code != exitOK {
		return code
	}
	errs := runner.CheckLoads(cfg, scenarios)
	for _, err := range errs {
		fmt.Fprintf(e.stderr, "llmload: %v\n", err)
	}
	if len(errs) > 0 {
		return exitInvalid
	}
	return exitOK
}

// cmpScenarios is the scenarios a command acts on: those selected, else
// all of them.
func cmpScenarios(selected []*scenario.Scenario, cfg *scenario.Config) []*scenario.Scenario {
	if len(selected) > 0 {
		return selected
	}
	return cfg.Scenarios
}

func cmdFmt(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "fmt", "PATH...")
	check := fs.Bool("check", false, "change nothing; exit 1 and list the files that are not formatted")
	diff := fs.Bool("diff", false, "change nothing; print the changes as a unified diff (as gofmt -d)")
	paths, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	files, err := scenario.Files(paths)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload: %v\n", err)
		return exitInvalid
	}
	unformatted := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(e.stderr, "llmload: %v\n", err)
			return exitInvalid
		}
		out, diags := scenario.Format(f, src)
		if diags.HasErrors() {
			// As every command prints them: file:line:col: error: ...
			writeDiags(e, nil, diags)
			return exitInvalid
		}
		if bytes.Equal(src, out) {
			continue
		}
		unformatted++
		if *diff {
			// The diff's header names the file.
			if err := writeUnifiedDiff(e.stdout, f, src, out); err != nil {
				fmt.Fprintf(e.stderr, "llmload fmt: %v\n", err)
			}
			continue
		}
		fmt.Fprintln(e.stdout, f)
		if *check {
			continue
		}
		info, err := os.Stat(f)
		if err != nil {
			fmt.Fprintf(e.stderr, "llmload: %v\n", err)
			return exitInvalid
		}
		if err := os.WriteFile(f, out, info.Mode().Perm()); err != nil {
			fmt.Fprintf(e.stderr, "llmload: %v\n", err)
			return exitInvalid
		}
	}
	if *check && unformatted > 0 {
		return exitCheckFailed
	}
	return exitOK
}
