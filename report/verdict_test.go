package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmload/llmload/results"
)

// TestVerdictEverywhere renders one result through every output and checks
// that each check's verdict, and the run's, look the same everywhere:
// skipped and inconclusive are never FAIL (nor PASS), and a run that did
// not finish is never a pass, though every check it judged passed.
func TestVerdictEverywhere(t *testing.T) {
	checks := func() []results.Check {
		return []results.Check{
			{Name: "c_pass", Kind: "sla", Passed: true, Verdict: results.Pass},
			{Name: "c_fail", Kind: "sla", Verdict: results.Fail, Message: "too slow"},
			{Name: "c_incl", Kind: "sla", Verdict: results.Inconclusive, Message: "too few samples"},
			{Name: "c_skip", Kind: "regression", Verdict: results.Skipped, Message: "no baseline"},
		}
	}
	gate := gateRun()
	gate.Checks = checks()
	interrupted := gateRun()
	interrupted.Comparison = nil
	interrupted.Interrupted = true
	interrupted.Checks = []results.Check{{Name: "c_pass", Kind: "sla", Passed: true, Verdict: results.Pass}}
	invalid := openLoopRun() // its validity is broken
	invalid.Checks = []results.Check{{Name: "c_pass", Kind: "sla", Passed: true, Verdict: results.Pass}}
	tests := []struct {
		name string
		run  *results.Run
		want string // the run's verdict
	}{
		{"checks of every verdict", gate, results.Fail},
		{"interrupted", interrupted, results.VerdictInterrupted},
		{"invalid", invalid, results.VerdictInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := result(t, tt.run)
			if v := r.Verdict(); v != tt.want {
				t.Fatalf("verdict %q, want %q", v, tt.want)
			}
			outs := map[string]string{}
			render := func(name string, f func(*bytes.Buffer) error) {
				var b bytes.Buffer
				if err := f(&b); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				outs[name] = b.String()
			}
			l := []Labelled{{"run", r}}
			render("console", func(b *bytes.Buffer) error { return WriteConsole(b, r) })
			render("html", func(b *bytes.Buffer) error { return WriteHTML(b, l) })
			render("markdown", func(b *bytes.Buffer) error { return WriteMarkdown(b, r) })
			render("markdown tables", func(b *bytes.Buffer) error { return WriteMarkdownTables(b, l) })
			render("csv", func(b *bytes.Buffer) error { return WriteCSV(b, l) })
			render("junit", func(b *bytes.Buffer) error { return WriteJUnit(b, []*results.Result{r}) })
			render("json", func(b *bytes.Buffer) error { return WriteJSONSummary(b, r) })

			// The run's own verdict.
			lk := lookOf(tt.want)
			for out, want := range map[string]string{
				"html":            `<span class="` + lk.Class + `">` + lk.Label + `</span>`,
				"markdown":        "`" + r.Scenario + "` " + lk.Badge,
				"markdown tables": "**run**: " + lk.Badge,
				"csv":             "run,run,verdict,value," + tt.want,
			} {
				if !strings.Contains(outs[out], want) {
					t.Errorf("%s does not give the run's verdict %q as %q:\n%s", out, tt.want, want, outs[out])
				}
			}
			var js struct{ Verdict string }
			if err := json.Unmarshal([]byte(outs["json"]), &js); err != nil || js.Verdict != tt.want {
				t.Errorf("json verdict %q (%v), want %q", js.Verdict, err, tt.want)
			}
			if tt.want != results.Fail && tt.want != results.Pass {
				if !strings.Contains(outs["console"], "Verdict: "+lk.Label) {
					t.Errorf("the console does not end with the verdict %s:\n%s", lk.Label, outs["console"])
				}
				if !strings.Contains(outs["junit"], `type="`+strings.ReplaceAll(tt.want, " ", "_")+`"`) {
					t.Errorf("JUnit has no %s error:\n%s", tt.want, outs["junit"])
				}
			}
			// Each check's verdict.
			for _, c := range r.Checks {
				lk := lookOf(c.Verdict)
				for out, want := range map[string]string{
					"console":         lk.Label,
					"html":            `<td class="` + lk.Class + `">` + lk.Label + `</td><td>` + c.Name + `</td>`,
					"markdown":        "| " + lk.Badge + " | `" + c.Name + "` |",
					"markdown tables": "| " + lk.Badge + " | " + c.Name + " |",
					"csv":             "run,checks," + c.Name + ",verdict," + c.Verdict,
				} {
					if !strings.Contains(outs[out], want) {
						t.Errorf("%s: check %s (%s) not rendered as %q:\n%s", out, c.Name, c.Verdict, want, outs[out])
					}
				}
				junit := map[string]string{results.Fail: "<failure", results.Inconclusive: "<skipped", results.Skipped: "<skipped"}[c.Verdict]
				if i := strings.Index(outs["junit"], `name="`+c.Name+`"`); i < 0 || (junit != "" && !strings.HasPrefix(strings.TrimSpace(outs["junit"][strings.Index(outs["junit"][i:], ">")+i+1:]), junit)) {
					t.Errorf("JUnit: check %s (%s) is not a %s case:\n%s", c.Name, c.Verdict, junit, outs["junit"])
				}
			}
			if strings.Contains(outs["html"], `class="fail">FAIL</td><td>c_skip`) || strings.Contains(outs["html"], `class="fail">FAIL</td><td>c_incl`) {
				t.Error("the HTML shows a skipped or inconclusive check as FAIL")
			}
		})
	}
}
