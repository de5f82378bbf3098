package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/llmload/llmload/internal/secret"
)

// LoadOptions are the inputs of a load besides the files.
type LoadOptions struct {
	// Vars are -var options ("name=value"), in command-line order; a later
	// one for the same name wins.
	Vars []string
	// VarFiles are -var-file paths (HCL "name = value" files, or JSON
	// objects when the name ends in .json); a later file wins.
	VarFiles []string
	// Environ is the environment as os.Environ() gives it. It feeds
	// LLMLOAD_VAR_<name> variables and the env() function; nil is an empty
	// environment.
	Environ []string
}

// EnvVarPrefix prefixes environment variables that set input variables.
const EnvVarPrefix = "LLMLOAD_VAR_"

// source is one configuration file's bytes.
type source struct {
	name string
	src  []byte
}

// Load reads the given files, and the *.hcl files of the given directories,
// as one configuration. It returns every problem found, in one pass; the
// Config is never nil, but when diags.HasErrors() only its Files (for
// WriteDiagnostics) are to be relied on.
//
// Load does not look at the files the configuration names (datasets,
// tokenizers, CA files): CheckFiles does.
func Load(paths []string, opts LoadOptions) (*Config, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var srcs []source
	if len(paths) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No configuration files",
			Detail:   "Give at least one scenario file or directory.",
		})
	}
	seen := map[string]bool{}
	for _, p := range paths {
		names, err := expandPath(p)
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read configuration", Detail: err.Error()})
			continue
		}
		for _, name := range names {
			if seen[filepath.Clean(name)] {
				continue
			}
			seen[filepath.Clean(name)] = true
			b, err := os.ReadFile(name)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read configuration", Detail: err.Error()})
				continue
			}
			srcs = append(srcs, source{name, b})
		}
	}
	cfg, more := load(srcs, opts)
	return cfg, append(diags, more...)
}

// Configurations groups paths into the configurations validate checks:
// all of them as one configuration, as Load reads them, except a directory
// whose files declare the same name twice (a target, a dataset, a variable
// or a scenario): it is a folder of configurations that each stand alone,
// as examples/ is, and each of its files is one of its own. With scenario
// set, only the files of such a folder that declare it are kept, and a
// folder where none does is an error. Each such folder gets a note naming
// a name declared twice, since a run of the folder refuses it. Unreadable
// paths are left for Load to report.
func Configurations(paths []string, scenario string) (configs [][]string, notes []string, err error) {
	var whole []string
	for _, p := range paths {
		names, err := expandPath(p)
		if err != nil || len(names) < 2 {
			whole = append(whole, p)
			continue
		}
		decls := map[string]string{} // `target "a"` -> the file declaring it
		split := ""
		var own [][]string // the files declaring the scenario
		for _, name := range names {
			mine := false
			for _, key := range declared(name) {
				if first, seen := decls[key]; seen && first != name && split == "" {
					split = fmt.Sprintf("%s is declared in %s and in %s", key, first, name)
				}
				decls[key] = name
				mine = mine || key == fmt.Sprintf("scenario %q", scenario)
			}
			if mine {
				own = append(own, []string{name})
			}
		}
		switch {
		case split == "":
			whole = append(whole, p)
			continue
		case len(own) > 0:
			configs = append(configs, own...)
		case scenario != "":
			return nil, nil, fmt.Errorf("no file of %s declares a scenario named %q (each file is a configuration of its own: %s)", p, scenario, split)
		default:
			for _, name := range names {
				configs = append(configs, []string{name})
			}
		}
		notes = append(notes, fmt.Sprintf("%s: %s: each file is checked as a configuration of its own (run them one at a time)", p, split))
	}
	if len(whole) > 0 || len(configs) == 0 {
		configs = append([][]string{whole}, configs...)
	}
	return configs, notes, nil
}

// Files lists the files paths name, as fmt formats them: a file as is, a
// directory's *.hcl files in name order (not recursively), none for a
// directory without any.
func Files(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		matches, err := filepath.Glob(filepath.Join(p, "*.hcl"))
		if err != nil {
			return nil, err
		}
		sort.Strings(matches)
		files = append(files, matches...)
	}
	return files, nil
}

// declared lists the named blocks a file declares at its top level
// (`target "a"`, `scenario "s"`); nothing when it cannot be read or parsed.
func declared(name string) []string {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil
	}
	f, _ := hclparse.NewParser().ParseHCL(src, name)
	if f == nil {
		return nil
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var keys []string
	for _, b := range body.Blocks {
		if len(b.Labels) > 0 {
			keys = append(keys, fmt.Sprintf("%s %q", b.Type, b.Labels[0]))
		}
	}
	return keys
}

// expandPath lists the *.hcl files of a directory, in name order, or
// returns a file as is.
func expandPath(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	names, err := filepath.Glob(filepath.Join(p, "*.hcl"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s holds no *.hcl files", p)
	}
	sort.Strings(names)
	return names, nil
}

// loader holds the state of one load.
type loader struct {
	opts    LoadOptions
	environ map[string]string
	// envRead are the environment variables env() read.
	envRead map[string]bool
	parser  *hclparse.Parser
	cfg     *Config
	diags   hcl.Diagnostics
	vars    cty.Value // the var object
	// variables are the declared variables, in declaration order.
	variables []*variable
	// targets and datasets by name, for references.
	targets  map[string]*Target
	datasets map[string]*Dataset
	// secrets are the sensitive variables' values.
	secrets *secret.Scrubber
	// sensitive are the names of the sensitive variables.
	sensitive []string
}

// load decodes already-read sources.
func load(srcs []source, opts LoadOptions) (*Config, hcl.Diagnostics) {
	l := &loader{
		opts:     opts,
		environ:  environMap(opts.Environ),
		envRead:  map[string]bool{},
		parser:   hclparse.NewParser(),
		cfg:      &Config{},
		targets:  map[string]*Target{},
		datasets: map[string]*Dataset{},
		secrets:  secret.New(),
	}
	l.cfg.Files = l.parser.Files()

	type parsed struct {
		name    string
		content *hcl.BodyContent
	}
	var files []parsed
	for _, s := range srcs {
		f, diags := l.parser.ParseHCL(s.src, s.name)
		l.diags = append(l.diags, diags...)
		if f == nil || f.Body == nil {
			continue
		}
		content, diags := f.Body.Content(rootSchema)
		l.diags = append(l.diags, diags...)
		files = append(files, parsed{s.name, content})
	}

	// Variables first: every other block may use them.
	for _, f := range files {
		for _, b := range f.content.Blocks.OfType("variable") {
			l.declareVariable(b)
		}
	}
	l.resolveVariables()

	for _, f := range files {
		d := l.dec(f.name)
		for _, b := range f.content.Blocks.OfType("target") {
			l.decodeTarget(d, b)
		}
		for _, b := range f.content.Blocks.OfType("dataset") {
			l.decodeDataset(d, b)
		}
	}
	for _, f := range files {
		d := l.dec(f.name)
		for _, b := range f.content.Blocks.OfType("scenario") {
			l.decodeScenario(d, f.name, b)
		}
	}
	l.checkResultFiles()
	// An environment variable the configuration read with env() whose name
	// says it holds a credential (OPENAI_API_KEY, HF_TOKEN, KEY) is a
	// secret wherever its value lands, even where it failed to decode:
	// tonumber(env("KEY")) would print it in its diagnostic. Only what
	// env() read, and only values of 8 bytes or more: the environment
	// holds TOKENIZERS_PARALLELISM=false, whose value is no secret.
	for name := range l.envRead {
		if v := l.environ[name]; len(v) >= 8 && secret.SensitiveHeader(name, nil) {
			l.secrets.Add(v)
		}
	}
	l.cfg.secrets = l.secrets
	all := l.cfg.Secrets()
	for _, s := range l.cfg.Scenarios {
		s.secrets = all
	}
	l.scrubDiagnostics()
	sortDiagnostics(l.diags, srcs)
	return l.cfg, l.diags
}

// scrubDiagnostics keeps secrets out of diagnostics: sensitive values,
// keys and URL passwords are masked in every summary and detail, and a
// diagnostic whose expression refers to a sensitive variable loses the
// evaluation context that would print its value.
func (l *loader) scrubDiagnostics() {
	s := l.cfg.Secrets()
	for _, v := range l.variables {
		if v.decl.Sensitive {
			l.sensitive = append(l.sensitive, v.decl.Name)
		}
	}
	for _, d := range l.diags {
		d.Summary, d.Detail = s.Scrub(d.Summary), s.Scrub(d.Detail)
		if d.Expression == nil || d.EvalContext == nil {
			continue
		}
		for _, tr := range d.Expression.Variables() {
			if tr.RootName() == "var" && len(tr) >= 2 && slices.Contains(l.sensitive, attrName(tr[1])) {
				d.Expression, d.EvalContext = nil, nil
				break
			}
		}
	}
}

// sortDiagnostics orders diagnostics by file (in load order) and position,
// those without a source range first, so that output is stable.
func sortDiagnostics(diags hcl.Diagnostics, srcs []source) {
	order := map[string]int{}
	for i, s := range srcs {
		order[s.name] = i + 1
	}
	key := func(d *hcl.Diagnostic) (int, int) {
		if d.Subject == nil {
			return 0, 0
		}
		i, ok := order[d.Subject.Filename]
		if !ok {
			i = len(srcs) + 1 // var files and -var values
		}
		return i, d.Subject.Start.Byte
	}
	sort.SliceStable(diags, func(i, j int) bool {
		fi, bi := key(diags[i])
		fj, bj := key(diags[j])
		return fi < fj || fi == fj && bi < bj
	})
}

var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "target", LabelNames: []string{"name"}},
		{Type: "dataset", LabelNames: []string{"name"}},
		{Type: "scenario", LabelNames: []string{"name"}},
	},
}

// dec returns a decoder for attributes of the named file.
func (l *loader) dec(filename string) dec {
	return dec{
		ctx: &hcl.EvalContext{
			Variables: map[string]cty.Value{"var": l.vars},
			Functions: configFunctions(filepath.Dir(filename), l.environ, l.envRead),
		},
		diags:    &l.diags,
		varNames: l.variableNames(),
	}
}

func environMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// checkName reports a block label that cannot be referred to.
func (l *loader) checkName(b *hcl.Block) bool {
	if name := b.Labels[0]; !validIdentifier(name) {
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid name",
			Detail: fmt.Sprintf("%q is not a valid %s name: a name starts with a letter and holds letters, digits, underscores and dashes, so that %s.<name> can refer to it.",
				name, b.Type, refRoot(b.Type)),
			Subject: b.LabelRanges[0].Ptr(),
		})
		return false
	}
	return true
}

func refRoot(blockType string) string {
	if blockType == "variable" {
		return "var"
	}
	return blockType
}

func validIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_'
		if !letter && (i == 0 || !(r >= '0' && r <= '9' || r == '-')) {
			return false
		}
	}
	return true
}

// duplicate reports a block whose name was already declared.
func (l *loader) duplicate(b *hcl.Block, first hcl.Range) {
	l.diags = append(l.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Duplicate " + b.Type,
		Detail:   fmt.Sprintf("A %s named %q was already declared at %s. Names must be unique.", b.Type, b.Labels[0], first),
		Subject:  b.DefRange.Ptr(),
	})
}
