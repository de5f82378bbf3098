package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
)

// The text formats of `llmload report`: the same figures as the HTML page,
// as Markdown tables or as tidy CSV.

// WriteMarkdownTables writes the summary (one column per result), the checks,
// and each result's steps (with the knee and capacity) and stages as
// Markdown tables.
func WriteMarkdownTables(w io.Writer, results []Labelled) error {
	p := &printer{w: w}
	names := make([]string, len(results))
	for i, r := range results {
		names[i] = r.Label
	}
	p.printf("# llmload report: %s\n\n", strings.Join(names, " vs "))
	p.printf("## Summary\n\n")
	mdTable(p, summaryTable(results))
	for i, r := range results {
		run := runInfo(i, r)
		p.printf("**%s**: %s\n\n", md(r.Label), run.Verdict.Badge)
		if len(run.Warnings) > 0 {
			for _, wn := range run.Warnings {
				p.printf("> **%s**: %s\n", r.Label, md(wn))
			}
			p.printf("\n")
		}
		if len(run.Checks) > 0 {
			p.printf("## Checks: %s\n\n", r.Label)
			t := htmlTable{Head: []string{"result", "check", "kind", "threshold", "measured", "why"}}
			for _, c := range run.Checks {
				t.Rows = append(t.Rows, []string{c.Look.Badge, c.Name, c.Kind, c.Threshold, c.Measured, c.Notes})
			}
			mdTable(p, t)
		}
		if len(run.Outputs) > 0 || len(run.Divergences) > 0 {
			p.printf("## Outputs: %s\n\n", r.Label)
			for _, l := range run.Outputs {
				p.printf("- %s\n", mdText(l))
			}
			p.printf("\n")
		}
		if len(run.Divergences) > 0 {
			// The server's text, as inline code: nothing in it takes effect.
			t := htmlTable{Head: []string{"prompt", "first difference at", "shared text", "baseline goes on", "candidate goes on"}}
			for _, d := range run.Divergences {
				before := d.Before
				if d.Cut {
					before = "…" + before
				}
				code := func(s string) string {
					if s == "" {
						return "(ends here)"
					}
					return mdCode(s)
				}
				t.Rows = append(t.Rows, []string{d.Prompt, fmt.Sprint(d.At), code(before), code(d.Base), code(d.Candidate)})
			}
			p.printf("Answers that differ from %s:\n\n", mdText(run.Against))
			mdTable(p, t)
		}
		if run.Steps != nil {
			p.printf("## Steps: %s\n\n", r.Label)
			mdTable(p, *run.Steps)
			for _, f := range run.Findings {
				p.printf("- %s\n", md(strings.TrimSpace(f)))
			}
			p.printf("\n")
		}
		if run.Stages != nil {
			p.printf("## Stages: %s\n\n", r.Label)
			mdTable(p, *run.Stages)
			p.printf("Latencies in ms; mean users are those active while the stage dispatched.\n\n")
		}
	}
	return p.err
}

// md escapes the characters that would break a Markdown table cell.
func md(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func mdTable(p *printer, t htmlTable) {
	cells := func(row []string) {
		p.printf("|")
		for i := range t.Head {
			v := ""
			if i < len(row) {
				v = row[i]
			}
			p.printf(" %s |", md(v))
		}
		p.printf("\n")
	}
	cells(t.Head)
	p.printf("|")
	for i := range t.Head {
		if i == 0 {
			p.printf(" --- |")
		} else {
			p.printf(" ---: |")
		}
	}
	p.printf("\n")
	for _, r := range t.Rows {
		cells(r)
	}
	p.printf("\n")
}

// WriteCSV writes every figure of the report as one tidy CSV: columns
// result, table (summary, checks, steps, stages), row (the figure, check,
// step or stage), column and value, so that any tool can pivot it.
func WriteCSV(w io.Writer, results []Labelled) error {
	cw := csv.NewWriter(w)
	write := func(rec ...string) { _ = cw.Write(rec) }
	write("result", "table", "row", "column", "value")
	sum := summaryTable(results)
	for _, row := range sum.Rows {
		for i, r := range results {
			write(r.Label, "summary", row[0], "value", row[i+1])
		}
	}
	long := func(label, table string, t *htmlTable) {
		if t == nil {
			return
		}
		for _, row := range t.Rows {
			for j := 1; j < len(t.Head) && j < len(row); j++ {
				write(label, table, row[0], t.Head[j], row[j])
			}
		}
	}
	for i, r := range results {
		run := runInfo(i, r)
		write(r.Label, "run", "verdict", "value", r.Result.Verdict())
		for _, c := range run.Checks {
			write(r.Label, "checks", c.Name, "verdict", c.Verdict)
			write(r.Label, "checks", c.Name, "threshold", c.Threshold)
			write(r.Label, "checks", c.Name, "measured", c.Measured)
		}
		long(r.Label, "steps", run.Steps)
		long(r.Label, "stages", run.Stages)
		if sw := r.Result.Sweep; sw != nil {
			if k := sw.Knee; k != nil {
				write(r.Label, "sweep", "knee", LoadTitle(sw.Vary), formatLoad(k.Value))
			}
			if c := sw.Capacity; c != nil {
				write(r.Label, "sweep", "capacity", LoadTitle(sw.Vary), formatLoad(c.Value))
			}
			if s := sw.Search; s != nil {
				write(r.Label, "sweep", "search", "outcome", s.Outcome)
				write(r.Label, "sweep", "search", "low", formatLoad(s.Low))
				write(r.Label, "sweep", "search", "high", formatLoad(s.High))
				if s.Width != nil {
					write(r.Label, "sweep", "search", "width", fmt.Sprint(*s.Width))
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
