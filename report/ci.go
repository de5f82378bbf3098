package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmload/llmload/compare"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// Outputs for CI systems: JUnit XML, GitHub-flavoured Markdown (a step
// summary or a PR comment), GitHub Actions annotations and the JSON
// summary for scripts. Each is a pure function of results.

// CheckText is a check's outcome in one line, for failure messages:
// threshold, value, samples, interval and baseline.
func CheckText(c results.Check) string {
	var b strings.Builder
	b.WriteString(c.Name)
	if c.Kind == "assert" {
		b.WriteString(": " + c.Description)
		if m := c.MeasuredText(); m != "" {
			b.WriteString(" (" + m + ")")
		}
	} else {
		if t := c.ThresholdText(); t != "" {
			b.WriteString(": threshold " + t)
		}
		b.WriteString("; measured " + c.MeasuredText())
		if c.Samples > 0 && c.Stat != "" {
			fmt.Fprintf(&b, " (n=%d)", c.Samples)
		}
		if c.Lower != nil && c.Upper != nil {
			fmt.Fprintf(&b, "; %s interval %s to %s", checkConfidence(c), metrics.Format(c.Metric, c.Stat, *c.Lower), metrics.Format(c.Metric, c.Stat, *c.Upper))
		}
	}
	if c.Message != "" {
		b.WriteString(". " + strings.TrimSpace(c.Message))
	}
	return b.String()
}

// checkConfidence renders the confidence of a check's interval: 95%
// unless it says otherwise (a sequential gate's look, stop_early).
func checkConfidence(c metrics.Check) string {
	if c.Confidence > 0 {
		return compare.FormatConfidence(c.Confidence)
	}
	return "95%"
}

// JUnit XML: the structure every CI system reads (testsuites, testsuite,
// testcase with failure, error or skipped).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func xmlSeconds(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) }

// WriteJUnit writes results as JUnit XML: one testsuite per scenario, one
// testcase per check (a failed check a failure, an inconclusive or skipped
// one skipped), and a "validity" testcase that is an error when the run was
// invalid or produced no result.
func WriteJUnit(w io.Writer, rs []*results.Result) error {
	all := junitSuites{Name: "llmload"}
	var total float64
	for _, r := range rs {
		dur := r.EndedAt.Sub(r.StartedAt).Seconds()
		if dur < 0 || r.EndedAt.IsZero() {
			dur = 0
		}
		total += dur
		s := junitSuite{Name: r.Scenario, Time: xmlSeconds(dur)}
		if !r.StartedAt.IsZero() {
			s.Timestamp = r.StartedAt.UTC().Format("2006-01-02T15:04:05")
		}
		for _, p := range []junitProperty{{"run_id", r.RunID}, {"target", r.TargetURL}, {"server_version", r.ServerVersion}, {"tool_version", r.ToolVersion}} {
			if p.Value != "" {
				s.Properties = append(s.Properties, p)
			}
		}
		class := "llmload." + r.Scenario
		valid := junitCase{Name: "validity", Classname: class, Time: xmlSeconds(0)}
		switch r.Verdict() {
		case results.VerdictInterrupted:
			valid.Error = &junitProblem{Message: "interrupted: the run did not finish, so its checks prove nothing", Type: "interrupted"}
		case results.VerdictNoResult:
			valid.Error = &junitProblem{Message: "no request completed: no valid result", Type: "no_result"}
		case results.VerdictInvalid:
			var reasons []string
			for _, b := range r.Validity.Broken() {
				reasons = append(reasons, fmt.Sprintf("%s %s over its bound %s", b.Name, ruleText(b, b.Value), ruleText(b, b.Bound)))
			}
			valid.Error = &junitProblem{Message: "invalid run: " + strings.Join(reasons, "; "), Type: "invalid",
				Text: "The load generator did not do what the scenario said, so its checks prove nothing."}
		}
		s.Cases = append(s.Cases, valid)
		for _, c := range r.Checks {
			tc := junitCase{Name: c.Name, Classname: class + "." + c.Kind, Time: xmlSeconds(0)}
			text := CheckText(c)
			switch c.Verdict {
			case results.Fail:
				tc.Failure = &junitProblem{Message: text, Type: c.Kind, Text: text}
			case results.Inconclusive:
				tc.Skipped = &junitProblem{Message: "inconclusive: " + text}
			case results.Skipped:
				tc.Skipped = &junitProblem{Message: "skipped: " + text}
			}
			s.Cases = append(s.Cases, tc)
		}
		for _, tc := range s.Cases {
			s.Tests++
			switch {
			case tc.Failure != nil:
				s.Failures++
			case tc.Error != nil:
				s.Errors++
			case tc.Skipped != nil:
				s.Skipped++
			}
		}
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Errors += s.Errors
		all.Skipped += s.Skipped
		all.Suites = append(all.Suites, s)
	}
	all.Time = xmlSeconds(total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func ruleText(r results.Rule, v float64) string {
	if r.Unit == "ms" {
		return strconv.FormatFloat(v, 'f', 3, 64) + " ms"
	}
	return strconv.FormatFloat(100*v, 'f', 2, 64) + "%"
}

// mdCode renders text a server chose (its version) as inline code, so
// that no heading, link, image or HTML in it takes effect: backticks and
// line breaks cannot end the span.
func mdCode(s string) string {
	s = strings.NewReplacer("`", "'", "\n", " ", "\r", " ").Replace(s)
	return "`` " + s + " ``"
}

// mdText escapes a line of plain text (which may name a user's path) so
// that none of it takes effect as Markdown or HTML.
func mdText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`, "`", "\\`", "|", `\|`, "\n", " ").Replace(s)
}

// mdCell escapes a Markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", "<br>")
	if s == "" {
		return " "
	}
	return s
}

func mdRow(cells ...string) string {
	for i, c := range cells {
		cells[i] = mdCell(c)
	}
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// WriteMarkdown writes a result as GitHub-flavoured Markdown: the verdict,
// a summary row, the checks table and, with a baseline, its deltas. It fits
// a job summary or a PR comment.
func WriteMarkdown(w io.Writer, r *results.Result) error {
	p := &printer{w: w}
	s := r.Summary
	if s == nil {
		s = &metrics.Summary{}
	}
	p.printf("## llmload: `%s` %s\n\n", r.Scenario, lookOf(r.Verdict()).Badge)
	if r.ServerVersion != "" {
		p.printf("Server: %s. ", mdCode(r.ServerVersion))
	}
	p.printf("Run `%s`, llmload %s.\n\n", r.RunID, r.ToolVersion)
	ms := func(l metrics.Latency, v float64) string {
		if l.Count == 0 {
			return "-"
		}
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	p.printf("%s", mdRow("requests", "failed", "duration (s)", "req/s", "output tok/s", "TTFT p50 (ms)", "TTFT p99 (ms)", "ITL p50 (ms)", "ITL p99 (ms)"))
	p.printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	p.printf("%s", mdRow(strconv.Itoa(s.Completed+s.Failed), strconv.Itoa(s.Failed), strconv.FormatFloat(s.Duration, 'f', 1, 64),
		strconv.FormatFloat(s.RequestThroughput, 'f', 2, 64), strconv.FormatFloat(s.OutputThroughput, 'f', 1, 64),
		ms(s.TTFT, s.TTFT.P50), ms(s.TTFT, s.TTFT.P99), ms(s.ITL, s.ITL.P50), ms(s.ITL, s.ITL.P99)))
	if lines := outputLines(r.Summary); len(lines) > 0 {
		p.printf("\n**Outputs**\n\n")
		for _, l := range lines {
			p.printf("- %s\n", mdText(l))
		}
	}
	if v := r.Validity; v != nil && !v.Valid {
		p.printf("\n**Invalid run**: ")
		var reasons []string
		for _, b := range v.Broken() {
			reasons = append(reasons, fmt.Sprintf("%s %s over its bound %s", b.Name, ruleText(b, b.Value), ruleText(b, b.Bound)))
		}
		p.printf("%s. The load was not what the scenario said, so its checks prove nothing.\n", strings.Join(reasons, "; "))
	}
	if len(r.Checks) > 0 {
		p.printf("\n### Checks\n\n")
		p.printf("%s", mdRow("result", "check", "kind", "threshold", "measured", "interval", "baseline"))
		p.printf("|---|---|---|---|---:|---|---:|\n")
		for _, c := range r.Checks {
			interval, base := "", ""
			if c.Lower != nil && c.Upper != nil {
				interval = metrics.Format(c.Metric, c.Stat, *c.Lower) + " to " + metrics.Format(c.Metric, c.Stat, *c.Upper) +
					" (" + checkConfidence(c) + ")"
			}
			if c.Baseline != nil {
				base = metrics.Format(c.Metric, c.Stat, *c.Baseline)
			}
			name := "`" + c.Name + "`"
			thr := c.ThresholdText()
			if c.Kind == "assert" {
				thr = "`" + c.Description + "`"
			}
			p.printf("%s", mdRow(lookOf(checkVerdict(c)).Badge, name, c.Kind, thr, c.MeasuredText(), interval, base))
		}
		var notes []string
		for _, c := range r.Checks {
			if c.Verdict != results.Pass && c.Message != "" {
				notes = append(notes, fmt.Sprintf("- **%s** `%s`: %s", c.Verdict, c.Name, strings.ReplaceAll(strings.TrimSpace(c.Message), "\n", " ")))
			}
		}
		if len(notes) > 0 {
			p.printf("\n%s\n", strings.Join(notes, "\n"))
		}
	}
	var stopping *results.Stopping
	switch {
	case r.AB != nil:
		stopping = r.AB.Stopping
	case r.Repeat != nil:
		stopping = r.Repeat.Stopping
	}
	if lines := StoppingLines(stopping); len(lines) > 0 {
		p.printf("\n")
		for _, l := range lines {
			p.printf("- %s\n", mdText(l))
		}
	}
	if r.Comparison != nil {
		p.printf("\n")
		if p.err == nil {
			p.err = WriteComparisonMarkdown(w, r.Comparison)
		}
	}
	return p.err
}

// WriteComparisonMarkdown writes a comparison's table as Markdown.
func WriteComparisonMarkdown(w io.Writer, c *results.Comparison) error {
	p := &printer{w: w}
	p.printf("### Against the baseline %s\n\n", lookOf(orPass(c.Verdict)).Badge)
	p.printf("Baseline `%s` (run `%s`)", c.Baseline, c.BaseRunID)
	if c.BaseServerVersion != "" || c.ServerVersion != "" {
		p.printf("; server %s → %s", mdCode(orNone(c.BaseServerVersion)), mdCode(orNone(c.ServerVersion)))
	}
	p.printf(".\n\n")
	for _, f := range c.Forced {
		p.printf("> **Warning**: compared with -force although the workloads differ: %s\n", f)
	}
	if len(c.Forced) > 0 {
		p.printf("\n")
	}
	writeConfigMarkdown(p, c)
	p.printf("%s", mdRow(comparisonHeader(c)...))
	p.printf("|---|---:|---:|---:|---:|---|---|\n")
	for _, r := range c.Rows {
		cells := rowCells(r)
		if r.Verdict != "" {
			cells[6] = strings.Replace(cells[6], r.Verdict, lookOf(r.Verdict).Badge, 1)
			cells[6] = strings.Replace(cells[6], "FAIL", lookOf(results.Fail).Badge, 1)
		}
		p.printf("%s", mdRow(cells...))
	}
	var notes []string
	for _, r := range c.Rows {
		if r.Verdict != "" && r.Verdict != results.Pass && r.Message != "" {
			notes = append(notes, fmt.Sprintf("- **%s** `%s`: %s", r.Verdict, r.Key, r.Message))
		}
	}
	if len(notes) > 0 {
		p.printf("\n%s\n", strings.Join(notes, "\n"))
	}
	for _, n := range c.Notes {
		p.printf("\n%s\n", n)
	}
	return p.err
}

// marshal is json.Marshal without HTML escaping, so that thresholds such
// as "< 500 ms" stay readable.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func orPass(v string) string {
	if v == "" {
		return results.Pass
	}
	return v
}

// GitHubAnnotation renders a workflow command that GitHub Actions shows as
// an annotation on the file's line: "::error file=f,line=3,title=t::msg".
// Values are escaped as the Actions toolkit escapes them.
func GitHubAnnotation(level, file string, line int, title, msg string) string {
	prop := func(s string) string {
		r := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
		return r.Replace(s)
	}
	data := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(msg)
	var props []string
	if file != "" {
		props = append(props, "file="+prop(file))
		if line > 0 {
			props = append(props, "line="+strconv.Itoa(line))
		}
	}
	if title != "" {
		props = append(props, "title="+prop(title))
	}
	out := "::" + level
	if len(props) > 0 {
		out += " " + strings.Join(props, ",")
	}
	return out + "::" + data
}

// JSONSummary is what `-format json` prints: the result's summary and
// checks, with the verdict, validity and baseline comparison, for scripts.
type JSONSummary struct {
	Scenario      string              `json:"scenario"`
	RunID         string              `json:"run_id"`
	Verdict       string              `json:"verdict"`
	ServerVersion string              `json:"server_version,omitempty"`
	Summary       *metrics.Summary    `json:"summary"`
	Checks        []results.Check     `json:"checks"`
	Validity      *results.Validity   `json:"validity,omitempty"`
	Comparison    *results.Comparison `json:"comparison,omitempty"`
}

// WriteJSONSummary writes the JSON summary of results (one object per
// line, one line per scenario). The time series is left out: it is in the
// result file.
func WriteJSONSummary(w io.Writer, r *results.Result) error {
	s := r.Summary
	if s != nil {
		c := *s
		c.Series = nil
		s = &c
	}
	checks := r.Checks
	if checks == nil {
		checks = []results.Check{}
	}
	b, err := marshal(JSONSummary{Scenario: r.Scenario, RunID: r.RunID, Verdict: r.Verdict(), ServerVersion: r.ServerVersion,
		Summary: s, Checks: checks, Validity: r.Validity, Comparison: r.Comparison})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
