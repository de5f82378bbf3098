package main

import (
	"fmt"
	"os"

	"github.com/hashicorp/hcl/v2"

	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
)

// configFlags are the flags every command that reads scenario files takes.
type configFlags struct {
	vars     multiFlag
	varFiles multiFlag
}

func (c *configFlags) register(fs *flagSet) {
	fs.Var(&c.vars, "var", "set a variable, `name=value` (repeatable; beats -var-file and LLMLOAD_VAR_<name>)")
	fs.Var(&c.varFiles, "var-file", "read variable values from an HCL `file` (repeatable)")
	fs.BoolVar(&fs.e.diag.compact, "compact", false, "print problems as file:line:col lines only (the default when stderr is not a terminal)")
	fs.BoolVar(&fs.e.diag.verbose, "verbose", false, "print problems both as file:line:col lines and with their source")
}

// diagOptions say how diagnostics are rendered: on a terminal, with their
// source snippet; elsewhere (CI logs, editors), as one file:line:col line
// each.
type diagOptions struct {
	terminal bool
	compact  bool
	verbose  bool
}

func (o *diagOptions) modes() (line, block bool) {
	switch {
	case o == nil:
		return true, false
	case o.verbose:
		return true, true
	case o.compact || !o.terminal:
		return true, false
	}
	return false, true
}

// parseAndLoad parses a command's flags, wherever they stand among its
// arguments, and loads the scenario files the arguments name. It returns
// nil and an exit code when either fails.
func parseAndLoad(e env, fs *flagSet, cf *configFlags, args []string) (*scenario.Config, int) {
	paths, code, ok := parseInterspersed(fs, args)
	if !ok {
		return nil, code
	}
	return loadConfig(e, paths, cf)
}

// loadConfig reads the scenario files, checks what they refer to, and
// prints any diagnostics. It returns nil and an exit code when the
// configuration is invalid.
func loadConfig(e env, paths []string, cf *configFlags) (*scenario.Config, int) {
	if len(paths) == 0 {
		fmt.Fprintln(e.stderr, "llmload: no scenario file or directory given")
		return nil, exitInvalid
	}
	cfg, diags := scenario.Load(paths, scenario.LoadOptions{
		Vars:     cf.vars,
		VarFiles: cf.varFiles,
		Environ:  os.Environ(),
	})
	if cfg != nil && e.secrets != nil {
		e.secrets.Add(cfg.Secrets().Secrets()...)
	}
	if cfg != nil {
		// What decoding cannot see, reported in the same pass: the
		// simulator profiles and overrides that sim:// targets name. Files
		// are checked once the command knows which scenarios it runs
		// (checkFiles), so that one scenario does not need another's data.
		diags = append(diags, runner.CheckSimTargets(cfg)...)
	}
	if len(diags) > 0 {
		writeDiags(e, cfg, diags)
	}
	if diags.HasErrors() {
		return nil, exitInvalid
	}
	return cfg, exitOK
}

// writeDiags renders diagnostics as -compact and -verbose say, with
// scenario's one renderer.
func writeDiags(e env, cfg *scenario.Config, diags hcl.Diagnostics) {
	line, block := e.diag.modes()
	if err := cfg.WriteDiagnostics(e.stderr, diags, scenario.DiagStyle{Line: line, Block: block}); err != nil {
		fmt.Fprintln(e.stderr, diags.Error())
	}
}

// selectScenarios returns the scenario called name, or all when name is empty.
func selectScenarios(e env, cfg *scenario.Config, name string) ([]*scenario.Scenario, int) {
	if name == "" {
		if len(cfg.Scenarios) == 0 {
			fmt.Fprintln(e.stderr, "llmload: the configuration has no scenario block")
			return nil, exitInvalid
		}
		return cfg.Scenarios, exitOK
	}
	if s := cfg.Scenario(name); s != nil {
		return []*scenario.Scenario{s}, exitOK
	}
	fmt.Fprintf(e.stderr, "llmload: no scenario named %q; the configuration has:", name)
	for _, s := range cfg.Scenarios {
		fmt.Fprintf(e.stderr, " %s", s.Name)
	}
	fmt.Fprintln(e.stderr)
	return nil, exitInvalid
}

// checkFiles checks that the files the selected scenarios need (their
// datasets, tokenizers and CA files) are readable, and prints what is
// missing, what it is and where to get it. No scenario means every file the
// configuration names. It returns exitOK or exitInvalid.
func checkFiles(e env, cfg *scenario.Config, scenarios []*scenario.Scenario) int {
	diags := cfg.CheckFiles(scenarios...)
	if len(diags) > 0 {
		writeDiags(e, cfg, diags)
	}
	if diags.HasErrors() {
		return exitInvalid
	}
	return exitOK
}
