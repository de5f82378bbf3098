package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/runner"
	"github.com/llmload/llmload/scenario"
	"github.com/llmload/llmload/sim"
	"github.com/llmload/llmload/tokenizer"
)

func cmdSim(ctx context.Context, e env, args []string) int {
	fs := newFlags(e, "sim", "")
	listen := fs.String("listen", "127.0.0.1:8000", "`address` to listen on")
	profileName := fs.String("profile", "a100-llama3-8b", "engine `profile`: "+strings.Join(sim.Profiles(), ", "))
	seed := fs.Int64("seed", 0, "random `seed` for output lengths and faults")
	replicas := fs.Int(sim.ReplicasKey, 1, "serve `N` replicas, each with its own engine and /metrics on a free port of -listen's host, behind a round-robin balancer on -listen whose /metrics merges theirs with a replica label (1 to "+strconv.Itoa(sim.MaxReplicas)+"; replica i is seeded seed+i)")
	// Every engine parameter is a flag of its own; they are applied over
	// the profile after parsing, in the order given.
	base, _ := sim.LookupProfile(sim.Profiles()[0])
	// Flags are kebab-case (-max-num-seqs, as vLLM's); the profile's own
	// snake_case names (-max_num_seqs) are accepted but not listed.
	var overrides [][2]string
	for _, k := range base.Keys() {
		name := strings.ReplaceAll(k, "_", "-")
		fs.Func(name, base.Help(k)+" (default: "+sim.Defaults(k)+")", func(v string) error {
			overrides = append(overrides, [2]string{k, v})
			return nil
		})
		if name != k {
			fs.alias(k, name)
		}
	}
	rest, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return fs.usageError(fmt.Sprintf("unexpected argument %q", rest[0]))
	}
	p, err := sim.LookupProfile(*profileName)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload sim: %v (profiles: %s)\n", err, strings.Join(sim.Profiles(), ", "))
		return exitInvalid
	}
	for _, o := range overrides {
		if err := p.Set(o[0], o[1]); err != nil {
			fmt.Fprintf(e.stderr, "llmload sim: -%s: %v\n", strings.ReplaceAll(o[0], "_", "-"), err)
			return exitInvalid
		}
	}
	running, err := sim.ListenDeployment(*listen, p, *seed, *replicas)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload sim: %v\n", err)
		return exitInvalid
	}
	defer running.Close()
	fmt.Fprintf(e.stderr, "llmload sim: profile %s serving an OpenAI-compatible API on %s (Ctrl-C to stop)\n", *profileName, running.URL)
	for i, r := range running.Replicas {
		if len(running.Replicas) > 1 {
			fmt.Fprintf(e.stderr, "llmload sim: replica %d on %s, behind the round-robin balancer (its own /metrics; the balancer's merges them with %s=\"%d\")\n", i, r.URL, sim.ReplicaLabel, i)
		}
	}
	<-ctx.Done()
	return exitInterrupted
}

func cmdTokenize(_ context.Context, e env, args []string) int {
	fs := newFlags(e, "tokenize", "< text")
	path := fs.String("tokenizer", "", "`path` to a Hugging Face tokenizer.json (required)")
	special := fs.Bool("special", false, "add the special tokens the model adds (BOS), as vLLM counts prompts")
	count := fs.Bool("count", false, "print only the number of tokens")
	rest, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if *path == "" {
		return fs.usageError("-tokenizer is required")
	}
	if len(rest) > 0 {
		return fs.usageError(fmt.Sprintf("unexpected argument %q: the text is read from stdin", rest[0]))
	}
	tok, err := tokenizer.Load(*path)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload tokenize: %v\n", err)
		return exitInvalid
	}
	text, err := io.ReadAll(e.stdin)
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload tokenize: reading stdin: %v\n", err)
		return exitInvalid
	}
	ids := tok.Encode(string(text), *special)
	if *count {
		fmt.Fprintln(e.stdout, strconv.Itoa(len(ids)))
		return exitOK
	}
	if ids == nil {
		ids = []int{}
	}
	out, _ := json.Marshal(ids)
	fmt.Fprintln(e.stdout, string(out))
	return exitOK
}

func cmdDataset(_ context.Context, e env, args []string) int {
	const datasetUsage = "Usage: llmload dataset dump SCENARIO_PATH... [-dataset NAME] [-out FILE.jsonl]"
	switch {
	case len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help"):
		fmt.Fprintf(e.stdout, "%s\n\nSubcommands:\n  dump  write the requests a dataset block samples, in order, as JSONL\n\nRun 'llmload dataset dump -h' for its flags.\n", datasetUsage)
		return exitOK
	case len(args) == 0 || args[0] != "dump":
		msg := "llmload dataset: name a subcommand: dump"
		if len(args) > 0 {
			msg = fmt.Sprintf("llmload dataset: unknown subcommand %q", args[0])
			if suggest(args[0], []string{"dump"}) != "" {
				msg += `; did you mean "dump"?`
			}
		}
		fmt.Fprintf(e.stderr, "%s\n%s\nRun 'llmload dataset -h' for more.\n", msg, datasetUsage)
		return exitInvalid
	}
	fs := newFlags(e, "dataset dump", "SCENARIO_PATH...")
	var cf configFlags
	cf.register(fs)
	name := fs.String("dataset", "", "`name` of the dataset block to sample (required when there are several)")
	out := outFlag(fs, "", "output `file` (default: stdout)")
	cfg, code := parseAndLoad(e, fs, &cf, args[1:])
	if cfg == nil {
		return code
	}
	var d = cfg.Datasets[0:0]
	for _, ds := range cfg.Datasets {
		if *name == "" || ds.Name == *name {
			d = append(d, ds)
		}
	}
	if len(d) != 1 {
		var names []string
		for _, ds := range cfg.Datasets {
			names = append(names, strconv.Quote(ds.Name))
		}
		if *name != "" {
			fmt.Fprintf(e.stderr, "llmload dataset dump: no dataset named %q; the configuration has %s\n", *name, strings.Join(names, ", "))
		} else {
			fmt.Fprintf(e.stderr, "llmload dataset dump: name one dataset with --dataset: the configuration has %s\n", strings.Join(names, ", "))
		}
		return exitInvalid
	}
	if code := checkFiles(e, cfg, []*scenario.Scenario{{Dataset: d[0]}}); code != exitOK {
		return code
	}
	if d[0].Tokenizer == "server" {
		fmt.Fprintln(e.stderr, `llmload dataset dump: note: tokenizer = "server" is not called here (dump sends nothing); token counts use the approximation, so filtering may differ from a run`)
	}
	ds, _, err := runner.LoadDatasetOffline(d[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "llmload dataset dump: %v\n", err)
		return exitInvalid
	}
	if ds.Stats.Approximate {
		fmt.Fprintln(e.stderr, "llmload dataset dump: note: prompt_len and output_len are approximate (the dataset names no tokenizer)")
	}
	if *out == "" {
		if err := dataset.WriteJSONL(e.stdout, ds.Requests); err != nil {
			fmt.Fprintf(e.stderr, "llmload dataset dump: %v\n", err)
			return exitInvalid
		}
		return exitOK
	}
	if err := writeFileAtomic(*out, func(w io.Writer) error { return dataset.WriteJSONL(w, ds.Requests) }); err != nil {
		fmt.Fprintf(e.stderr, "llmload dataset dump: %v\n", err)
		return exitInvalid
	}
	fmt.Fprintf(e.stderr, "llmload: wrote %d requests to %s\n", len(ds.Requests), *out)
	return exitOK
}

// writeFileAtomic writes a file through a temporary file in the same
// folder and a rename, so a reader never sees half a file.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// CreateTemp makes the file private; what llmload writes is not.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
