package report

import (
	"fmt"
	"html/template"
	"image/color"
	"io"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// Labelled is one result of an HTML report, with the name it goes by in
// legends and headings (the file name, say "baseline").
type Labelled struct {
	Label  string
	Result *results.Result
}

// palette is the colour of each result in overlaid plots: the first is
// the baseline, the second the candidate.
var palette = []color.RGBA{
	{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff},
}

var (
	slaColour  = color.RGBA{R: 0xe0, G: 0x40, B: 0x40, A: 0xff}
	kneeColour = color.RGBA{R: 0x60, G: 0x60, B: 0x60, A: 0xff}
	capColour  = color.RGBA{R: 0x20, G: 0x90, B: 0x40, A: 0xff}
	plotWidth  = 7.5 * vg.Inch
	plotHeight = 3.2 * vg.Inch
	sansSerif  = font.Font{Typeface: "Liberation", Variant: "Sans"}
)

func colourOf(i int) color.RGBA { return palette[i%len(palette)] }

// figure is one rendered plot.
type figure struct {
	Title string
	SVG   template.HTML
	boxes boxes // where its parts went, for the tests
}

// WriteHTML writes one self-contained HTML page (inline CSS and SVG, no
// script, no external URL) for one result, or several overlaid (the first
// as the baseline): the summary and checks, latency CDFs from the stored
// histograms, the time series, stage tables, and for sweeps and capacity
// searches throughput and P99 latencies against load with the SLA bounds,
// the knee and the capacity marked. It reads only the results.
func WriteHTML(w io.Writer, results []Labelled) error {
	if len(results) == 0 {
		return fmt.Errorf("no result to report")
	}
	page := htmlPage{Title: "llmload report: " + results[0].Result.Scenario}
	if len(results) > 1 {
		var names []string
		for _, r := range results {
			names = append(names, r.Label)
		}
		page.Title = "llmload report: " + strings.Join(names, " vs ")
	}
	for i, r := range results {
		page.Runs = append(page.Runs, runInfo(i, r))
	}
	page.Summary = summaryTable(results)
	var err error
	if page.CDFs, page.Series, page.Load, err = plots(results); err != nil {
		return err
	}
	return htmlTemplate.Execute(w, page)
}

// plots draws the report's figures: the latency CDFs, the time series,
// and, for sweeps, capacity searches and stage runs, the load plots.
func plots(results []Labelled) (cdfs, series, load []figure, err error) {
	var figs []figure
	add := func(f figure, err error) error {
		if err != nil {
			return err
		}
		if f.SVG != "" {
			figs = append(figs, f)
		}
		return nil
	}
	for _, name := range mainLatencies() {
		if err := add(cdfPlot(results, name)); err != nil {
			return nil, nil, nil, err
		}
	}
	cdfs, figs = figs, nil
	for _, f := range []func([]Labelled) (figure, error){throughputPlot, inFlightPlot, percentilePlot("ttft"), percentilePlot("itl"),
		serverPlot("kv_cache_usage", "Server KV-cache usage over time", "fraction of the KV cache in use"),
		serverPlot("requests_running", "Server running requests over time", "requests in the batch"),
		serverPlot("queue", "Server waiting requests over time", "requests waiting"),
		serverPlot("preemptions", "Server preemptions over time", "preemptions per second")} {
		if err := add(f(results)); err != nil {
			return nil, nil, nil, err
		}
	}
	series, figs = figs, nil
	if hasSweep(results) {
		for _, f := range []func([]Labelled) (figure, error){loadPlot("output"), loadPlot("ttft"), loadPlot("itl")} {
			if err := add(f(results)); err != nil {
				return nil, nil, nil, err
			}
		}
		load = figs
	}
	return cdfs, series, load, nil
}

type htmlPage struct {
	Title   string
	Runs    []htmlRun
	Summary htmlTable
	CDFs    []figure
	Series  []figure
	Load    []figure
}

type htmlRun struct {
	Label, Colour string
	// Verdict is the run's own, from the one judge (Result.Verdict).
	Verdict  look
	Facts    []string
	Warnings []string
	Checks   []htmlCheck
	Stages   *htmlTable
	Steps    *htmlTable
	Findings []string
	// Outputs say what the answers said; Divergences show the first
	// answers that differ from the baseline's, and Against names it.
	Outputs     []string
	Divergences []htmlDivergence
	Against     string
}

type htmlCheck struct {
	Passed                                 bool
	Look                                   look
	Verdict                                string
	Name, Kind, Threshold, Measured, Notes string
}

type htmlTable struct {
	Head []string
	Rows [][]string
}

func cssColour(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

func runInfo(i int, l Labelled) htmlRun {
	r := l.Result
	run := htmlRun{Label: l.Label, Colour: cssColour(colourOf(i)), Verdict: lookOf(r.Verdict())}
	run.Facts = append(run.Facts,
		"scenario "+r.Scenario,
		"run "+r.RunID,
		"started "+r.StartedAt.Format("2006-01-02 15:04:05 MST"),
		"target "+r.TargetURL+" ("+r.API+")",
		"model "+r.ModelID,
		"llmload "+r.ToolVersion)
	if r.Interrupted {
		run.Warnings = append(run.Warnings, "Interrupted: these are partial results.")
	}
	if r.Schedule.Warning != "" {
		run.Warnings = append(run.Warnings, r.Schedule.Warning)
	}
	if r.TokenizerApproximate {
		run.Warnings = append(run.Warnings, "The tokenizer is approximate for this model: token counts are estimates.")
	}
	for _, c := range r.Checks {
		hc := htmlCheck{Passed: c.Passed, Look: lookOf(checkVerdict(c)), Verdict: checkVerdict(c), Name: c.Name, Kind: c.Kind, Threshold: c.ThresholdText(), Measured: c.MeasuredText()}
		if c.Kind == "assert" {
			hc.Threshold = c.Description
		}
		if checkVerdict(c) != results.Pass {
			hc.Notes = c.Message
		}
		run.Checks = append(run.Checks, hc)
	}
	run.Outputs, run.Divergences = outputLines(r.Summary), divergences(r.Summary)
	if len(run.Divergences) > 0 {
		run.Against = r.Summary.Agreement.Against
	}
	if len(r.Stages) > 0 {
		t := &htmlTable{Head: []string{"stage", "users", "mean users", "time (s)", "req/s", "out tok/s", "tok/s/user", "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "errors", "sla"}}
		for _, st := range r.Stages {
			s := st.Summary
			if s == nil || s.Completed+s.Failed == 0 {
				t.Rows = append(t.Rows, []string{fmt.Sprint(st.Stage), fmt.Sprint(st.Users), "not run"})
				continue
			}
			mean := cmpOr(st.MeanUsers, float64(st.Users))
			verdict := cmpOrStr(slaVerdict(st.SLAChecked, st.SLAFailed, st.SLAInconclusive), "-")
			t.Rows = append(t.Rows, []string{fmt.Sprint(st.Stage), fmt.Sprint(st.Users), f1(mean), f1(st.Duration), f2(s.RequestThroughput),
				f2(s.OutputThroughput), f2(perUnit(s.OutputThroughput, mean)), f2(s.TTFT.P50), f2(s.TTFT.P99), f2(s.ITL.P50), f2(s.ITL.P99), fmt.Sprint(s.Failed), verdict})
		}
		run.Stages = t
	}
	if sw := r.Sweep; sw != nil && len(sw.Steps) > 0 {
		t := &htmlTable{Head: []string{"step", LoadTitle(sw.Vary), "time (s)", "req/s", "out tok/s", perUnitTitle(sw.Vary), "TTFT p50", "TTFT p99", "ITL p50", "ITL p99", "err %", "sla"}}
		for _, row := range StepRows(sw) {
			if !row.Ran {
				t.Rows = append(t.Rows, []string{fmt.Sprint(row.Step), formatLoad(row.Value), "not run"})
				continue
			}
			t.Rows = append(t.Rows, []string{fmt.Sprint(row.Step), formatLoad(row.Value), f1(row.Duration), f2(row.ReqPerS), f2(row.OutTokPerS), f2(row.PerUnit),
				f2(row.TTFTP50), f2(row.TTFTP99), f2(row.ITLP50), f2(row.ITLP99), f2(100 * row.ErrorRate), cmpOrStr(row.Verdict, "-")})
		}
		run.Steps = t
		run.Findings = SweepFindings(sw)
	}
	return run
}

// mainLatencies are the latencies the report plots and tabulates, in the
// catalogue's order: those vLLM prints percentiles of.
func mainLatencies() []string {
	var out []string
	for _, m := range metrics.Catalogue {
		if m.VLLM > 0 {
			out = append(out, m.Name)
		}
	}
	return out
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

// summaryTable has one row per figure and one column per result.
func summaryTable(results []Labelled) htmlTable {
	t := htmlTable{Head: []string{"figure"}}
	for _, r := range results {
		t.Head = append(t.Head, r.Label)
	}
	type fig struct {
		name string
		get  func(s *metrics.Summary) string
	}
	figs := []fig{
		{"completed requests", func(s *metrics.Summary) string { return fmt.Sprint(s.Completed) }},
		{"failed requests", func(s *metrics.Summary) string { return fmt.Sprint(s.Failed) }},
		{"error rate", func(s *metrics.Summary) string { return fmt.Sprintf("%.2f%%", 100*s.ErrorRate()) }},
		{"duration (s)", func(s *metrics.Summary) string { return f2(s.Duration) }},
		{"request throughput (req/s)", func(s *metrics.Summary) string { return f2(s.RequestThroughput) }},
		{"output throughput (tok/s)", func(s *metrics.Summary) string { return f2(s.OutputThroughput) }},
		{"peak output throughput (tok/s)", func(s *metrics.Summary) string { return f2(s.PeakOutputThroughput) }},
		{"peak concurrent requests", func(s *metrics.Summary) string { return fmt.Sprint(s.PeakConcurrency) }},
		{"capacity", func(s *metrics.Summary) string {
			if s.Capacity == nil {
				return "-"
			}
			return formatLoad(*s.Capacity)
		}},
	}
	for _, name := range mainLatencies() {
		for _, stat := range []string{"p50", "p90", "p99"} {
			figs = append(figs, fig{metrics.Title(name, stat) + " (ms)", func(s *metrics.Summary) string {
				v, ok := s.Value(name, stat)
				if !ok {
					return "-"
				}
				return f2(v)
			}})
		}
	}
	for _, f := range figs {
		row := []string{f.name}
		for _, r := range results {
			s := r.Result.Summary
			if s == nil {
				s = &metrics.Summary{}
			}
			row = append(row, f.get(s))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

var htmlTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; margin: 1.5em auto; max-width: 1150px; padding: 0 1em; color: #222; background: #fff; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
h3 { font-size: 1.05em; margin-bottom: 0.3em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #d8d8d8; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; }
td:first-child, th:first-child { text-align: left; }
.pass { color: #1a7f37; font-weight: bold; }
.fail { color: #c62828; font-weight: bold; }
.incl { color: #a15c00; font-weight: bold; }
.skip { color: #666; font-weight: bold; }
.warn { background: #fff4e5; border-left: 4px solid #f0a020; padding: 0.4em 0.8em; margin: 0.4em 0; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; margin-right: 0.4em; vertical-align: middle; }
.facts { color: #555; font-size: 0.9em; margin: 0.2em 0 0.6em; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 0.8em 1.2em; margin: 0.6em 0 1.2em; }
.plots svg { display: block; width: 100%; height: auto; }
.findings { margin: 0.3em 0 1em; padding-left: 1.2em; }
.left td { text-align: left; }
.text { font-family: "Liberation Mono", monospace; white-space: pre-wrap; word-break: break-word; max-width: 22em; }
.base { background: #e8f5e9; }
.cand { background: #ffebee; }
.end { color: #777; font-style: italic; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Runs}}<div class="facts"><span class="swatch" style="background: {{.Colour}}"></span><b>{{.Label}}</b> <span class="{{.Verdict.Class}}">{{.Verdict.Label}}</span>: {{range $i, $f := .Facts}}{{if $i}} &middot; {{end}}{{$f}}{{end}}</div>
{{range .Warnings}}<div class="warn">{{.}}</div>
{{end}}{{end}}
<h2>Summary</h2>
<table>
<tr>{{range .Summary.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Summary.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{range .Runs}}{{if .Checks}}
<h2>Checks: {{.Label}}</h2>
<table class="left">
<tr><th>result</th><th>check</th><th>kind</th><th>threshold</th><th>measured</th><th>why</th></tr>
{{range .Checks}}<tr><td class="{{.Look.Class}}">{{.Look.Label}}</td><td>{{.Name}}</td><td>{{.Kind}}</td><td>{{.Threshold}}</td><td>{{.Measured}}</td><td>{{.Notes}}</td></tr>
{{end}}</table>
{{end}}{{end}}
{{if .Load}}<h2>Load</h2>
{{range .Runs}}{{if .Steps}}<h3>Steps: {{.Label}}</h3>
<table>
<tr>{{range .Steps.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Steps.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
<ul class="findings">{{range .Findings}}<li>{{.}}</li>{{end}}</ul>
{{end}}{{end}}
<div class="plots">{{range .Load}}{{.SVG}}
{{end}}</div>
{{end}}
{{if .CDFs}}<h2>Latency distributions</h2>
<div class="plots">{{range .CDFs}}{{.SVG}}
{{end}}</div>
{{end}}
{{if .Series}}<h2>Over time</h2>
<div class="plots">{{range .Series}}{{.SVG}}
{{end}}</div>
{{end}}
{{range .Runs}}{{if or .Outputs .Divergences}}<h2>Outputs: {{.Label}}</h2>
<ul class="findings">{{range .Outputs}}<li>{{.}}</li>{{end}}</ul>
{{if .Divergences}}<h3>Answers that differ from {{.Against}}</h3>
<p class="facts">The first {{len .Divergences}} prompts (by dataset index) whose kept answers differ, cut at their first difference: the text both answers share just before it, then how each goes on.</p>
<table class="left">
<tr><th>prompt</th><th>first difference at (character)</th><th>shared text</th><th>baseline goes on</th><th>candidate goes on</th></tr>
{{range .Divergences}}<tr><td>{{.Prompt}}</td><td>{{.At}}</td><td class="text">{{if .Cut}}&hellip;{{end}}{{.Before}}</td><td class="text base">{{if .BaseEnds}}<span class="end">(ends here)</span>{{else}}{{.Base}}{{end}}</td><td class="text cand">{{if .CandEnds}}<span class="end">(ends here)</span>{{else}}{{.Candidate}}{{end}}</td></tr>
{{end}}</table>
{{end}}{{end}}{{end}}
{{range .Runs}}{{if .Stages}}<h2>Stages: {{.Label}}</h2>
<table>
<tr>{{range .Stages.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Stages.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
<p class="facts">Latencies in ms; mean users are the users active while the stage dispatched, which tok/s/user divides by.</p>
{{end}}{{end}}
<p class="facts">Written by llmload from the result files alone: every figure above is in them.</p>
</body>
</html>
`))
