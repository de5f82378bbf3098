package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmload/llmload/assert"
	"github.com/llmload/llmload/executor"
	"github.com/llmload/llmload/internal/secret"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
	"github.com/llmload/llmload/scenario"
)

// baselineFor loads the baseline a scenario's checks compare with: the
// override's (the -baseline flag), else the scenario's. It returns nil (and
// StatusOK) when the scenario has none and needs none. A missing file is
// StatusInvalid unless baseline_optional, which skips the checks that need
// it.
//
// A baseline that was interrupted proves nothing either, and is refused
// unless force (-force), which uses it with a warning.
func baselineFor(log io.Writer, s *scenario.Scenario, override string, force bool) (*assert.Baseline, *results.Result, Status) {
	if override != "" {
		s.Baseline = override
	}
	if s.Baseline == "" {
		if s.UsesBaseline() && !s.BaselineOptional {
			fmt.Fprintf(log, "llmload: scenario %q: its checks read a baseline (baseline.* or a regression block) but it names none: set baseline = \"FILE\" or run with -baseline FILE\n", s.Name)
			return nil, nil, StatusInvalid
		}
		if s.UsesBaseline() {
			fmt.Fprintf(log, "llmload: scenario %q: no baseline; its baseline checks are skipped (baseline_optional)\n", s.Name)
			return &assert.Baseline{}, nil, StatusOK
		}
		return nil, nil, StatusOK
	}
	res, err := results.ReadResult(s.Baseline)
	switch {
	case err == nil && res.Verdict() == results.VerdictInvalid || err == nil && res.Verdict() == results.VerdictNoResult:
		fmt.Fprintf(log, "llmload: scenario %q: baseline %s is a run with no valid result (%s): it cannot judge another; refresh it\n", s.Name, s.Baseline, res.Verdict())
		return nil, nil, StatusInvalid
	case err == nil && res.Verdict() == results.VerdictInterrupted && !force:
		fmt.Fprintf(log, "llmload: scenario %q: baseline %s was interrupted (it did not finish): its figures are partial and cannot judge another; refresh it, or -force to use it anyway\n", s.Name, s.Baseline)
		return nil, nil, StatusInvalid
	case err == nil && res.Verdict() == results.VerdictInterrupted:
		fmt.Fprintf(log, "llmload: WARNING: baseline %s was interrupted (it did not finish); used anyway (-force)\n", s.Baseline)
		return &assert.Baseline{Path: s.Baseline, RunID: res.RunID, Summary: res.Summary, Runs: res.Repeat.Summaries()}, res, StatusOK
	case err == nil:
		fmt.Fprintf(log, "llmload: baseline %s (run %s, %s)\n", s.Baseline, res.RunID, res.StartedAt.Format(time.RFC3339))
		// A baseline with repeats, against a run with repeats, is judged
		// by the run-to-run spread (the run sets NewRuns).
		return &assert.Baseline{Path: s.Baseline, RunID: res.RunID, Summary: res.Summary, Runs: res.Repeat.Summaries()}, res, StatusOK
	case errors.Is(err, fs.ErrNotExist) && s.BaselineOptional:
		fmt.Fprintf(log, "llmload: no baseline at %s; its checks are skipped (baseline_optional)\n", s.Baseline)
		return &assert.Baseline{Path: s.Baseline}, nil, StatusOK
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(log, "llmload: scenario %q: baseline %s does not exist (baseline_optional = true runs without it; -save-baseline DIR writes one)\n", s.Name, s.Baseline)
		return nil, nil, StatusInvalid
	}
	fmt.Fprintf(log, "llmload: baseline: %v\n", err)
	return nil, nil, StatusInvalid
}

// comparison compares the run with its baseline result by the scenario's
// regression tolerances (none: the deltas alone, not judged).
func comparison(s *scenario.Scenario, baseRes *results.Result, rep *results.Run, forced []string) *results.Comparison {
	if baseRes == nil || baseRes.Summary == nil {
		return nil
	}
	cand := &results.Result{Extras: results.Extras{Summary: rep.Overall, RunID: rep.RunID, ServerVersion: rep.ServerVersion,
		ServerConfig: rep.ServerConfig, Checks: rep.Checks, Repeat: rep.Repeat}}
	if !rep.Goodput.Empty() {
		cand.Goodput = &results.SLOms{}
	}
	c := compareResults(s.Baseline, baseRes, cand, s.Tolerances(), s.MinSamples)
	if len(s.Regression) == 0 {
		c.Verdict = ""
	}
	c.Forced = forced
	c.Notes = OutputNotes(baseRes.Summary, rep.Overall)
	return c
}

// destination is where a run writes its result: a directory and the result
// file's name in it; latest, when set, is the folder whose "latest" pointer
// the run updates.
type destination struct {
	dir, name, latest string
}

// destinationFor applies the output rule: -out FILE.json writes that file
// (the requests file beside it); an explicit -out DIR (outExplicit) writes
// DIR/<result>; the default directory gets a folder per run, <UTC
// time>-<scenario>, and a "latest" pointer to it, unless -overwrite.
func destinationFor(out string, outExplicit, overwrite bool, s *scenario.Scenario, now time.Time) destination {
	switch {
	case out == "":
		return destination{}
	case strings.HasSuffix(out, ".json") && outExplicit:
		return destination{dir: filepath.Dir(out), name: filepath.Base(out)}
	case outExplicit || overwrite:
		return destination{dir: out, name: s.ResultFile()}
	}
	folder := now.UTC().Format("2006-01-02T15-04-05Z") + "-" + s.Name
	return destination{dir: filepath.Join(out, folder), name: s.ResultFile(), latest: out}
}

// updateLatest points root/latest at the run's folder: a relative symlink,
// or, where symlinks fail, root/latest.json naming the folder.
func updateLatest(root, dir string) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return err
	}
	link := filepath.Join(root, "latest")
	tmp := link + ".tmp"
	os.Remove(tmp)
	if err := os.Symlink(rel, tmp); err == nil {
		if err := os.Rename(tmp, link); err == nil {
			return nil
		}
		os.Remove(tmp)
	}
	body := fmt.Sprintf("{\"latest\": %q}\n", rel)
	return os.WriteFile(filepath.Join(root, "latest.json"), []byte(body), 0o644)
}

// probeVersion asks the target for its version before the run; never
// fatal. What the server says is printed and rendered: it comes back
// escaped (secret.Printable).
func probeVersion(ctx context.Context, log io.Writer, lt *liveTarget) string {
	client, err := setupClient(lt)
	if err != nil {
		lt.target.ModelAliases = nil
		return ""
	}
	defer client.CloseIdleConnections()
	return probeVersionWith(ctx, log, lt, client)
}

// probeVersionWith is probeVersion through client (setupClient).
func probeVersionWith(ctx context.Context, log io.Writer, lt *liveTarget, client *http.Client) string {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	raw, aliases := probeServerVersionWith(pctx, lt, client)
	v := secret.Printable(raw)
	if v != "" {
		fmt.Fprintf(log, "llmload: target server: %s\n", v)
	}
	lt.target.ModelAliases = aliases
	if len(lt.target.ModelAliases) > 0 {
		fmt.Fprintf(log, "llmload: the server also names model %q %s (its /v1/models)\n", lt.target.Model, secret.Printable(strings.Join(lt.target.ModelAliases, ", ")))
	}
	return v
}

// warnPromptCache says when an engine served cached prompt tokens to a
// run whose target turned its cache off: the engine ignored the fields
// (an engine the probe could not name, behind a proxy, say), and the
// figures are a warm cache's.
func warnPromptCache(log io.Writer, lt *liveTarget, s *metrics.Summary) {
	if lt.target.PromptCache != executor.PromptCacheOff || s == nil || s.CachedTokens == 0 {
		return
	}
	fmt.Fprintf(log, "llmload: warning: prompt_cache = \"off\", yet the engine served %d of %d prompt tokens from its cache: it ignored %s, so the latencies are a warm cache's\n",
		s.CachedTokens, s.CacheReportedPrompt, map[bool]string{true: "cache_prompt = false", false: "the per-request cache_salt"}[lt.target.CachePromptFlag])
}

// fitPromptCache fits the target's prompt cache policy to the engine its
// probe named (version): llama.cpp turns its cache off per request by
// cache_prompt = false and has no cache_salt to isolate a run's cache;
// Ollama has neither. Any other engine is sent vLLM's cache_salt.
func fitPromptCache(lt *liveTarget, version string) error {
	policy := lt.target.PromptCache
	if policy == "" {
		return nil
	}
	switch {
	case strings.HasPrefix(version, "llama.cpp "):
		if policy == executor.PromptCacheIsolate {
			return fmt.Errorf(`prompt_cache = "isolate" needs an engine that keys its prompt cache by cache_salt (vLLM); %s has none: prompt_cache = "off" turns its cache off for every request`, version)
		}
		lt.target.CachePromptFlag = true
	case strings.HasPrefix(version, "ollama "):
		return fmt.Errorf(`prompt_cache = %q: %s has no per-request control of its prompt cache (no cache_salt, no cache_prompt); leave prompt_cache out`, policy, version)
	}
	return nil
}
