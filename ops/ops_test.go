package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/ops/opstest"
	"github.com/llmload/llmload/results"
)

// sweep is the shared fixture (opstest.Sweep).
var sweep = opstest.Sweep

func TestDerive(t *testing.T) {
	noServer := sweep(results.VaryUsers, 0)
	noServer.Summary.Server = nil
	interrupted := sweep(results.VaryUsers, 0)
	interrupted.Interrupted = true
	noCapacity := sweep(results.VaryUsers, 0)
	noCapacity.Sweep.Capacity = nil
	for _, tt := range []struct {
		name    string
		r       *results.Result
		lower   float64
		signal  string
		atLower float64
		conc    float64
		pages   int
		err     string
	}{
		// The batch's running requests rise with the load (rho 1) and are
		// higher at 40 users than at 30: chosen over the queue (0 until
		// the failing step: it does not track the load below it) and over
		// KV usage (also rho 1, but later in the order of preference).
		{name: "users", r: sweep(results.VaryUsers, 0), lower: 30, signal: "vllm:num_requests_running", atLower: 27, conc: 15, pages: 1},
		// A rate's capacity is converted to a concurrency by Little's law:
		// 3 req/s x 5 s = 15 in flight.
		{name: "rate", r: sweep(results.VaryRate, 0), lower: 30, signal: "vllm:num_requests_running", atLower: 27, conc: 15, pages: 1},
		// With repeats, the 30-user step held in 2 of 3 runs: the lower
		// bound is 20 users, where every run held.
		{name: "repeats", r: sweep(results.VaryUsers, 3), lower: 20, signal: "vllm:num_requests_running", atLower: 18, conc: 10, pages: 1},
		// Without the server's metrics there is no signal and no page.
		{name: "no server metrics", r: noServer, lower: 30, signal: "", conc: 15, pages: 0},
		{name: "interrupted", r: interrupted, err: "interrupted"},
		{name: "no capacity", r: noCapacity, err: "no load met every sla check"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Derive(tt.r, Options{})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []any{p.Lower, p.Signal.Metric, p.Signal.AtLower, p.Concurrency, len(p.Pages)}
			want := []any{tt.lower, tt.signal, tt.atLower, tt.conc, tt.pages}
			if diff := cmp.Diff(want, got, cmpApprox); diff != "" {
				t.Errorf("lower, signal, at lower, concurrency, pages (-want +got):\n%s", diff)
			}
			if tt.signal != "" {
				if p.Warn() != round3(0.9*tt.atLower) || p.Target() != round3(0.8*tt.atLower) {
					t.Errorf("warn %v, target %v: want 90%% and 80%% of %v", p.Warn(), p.Target(), tt.atLower)
				}
			}
		})
	}
}

var cmpApprox = cmp.Comparer(func(a, b float64) bool { return a == b || (a-b < 1e-9 && b-a < 1e-9) })

// TestSaturatingSignal: a gauge pinned at its limit from the capacity on
// (the batch's running requests when the batch is the limit) reads a
// little lower past the capacity by noise and still qualifies; one that
// falls clearly does not.
func TestSaturatingSignal(t *testing.T) {
	for _, tt := range []struct {
		at40      float64 // running requests at 40 users (27 at 30)
		separates bool
	}{{26.5, true}, {27, true}, {20, false}} {
		r := sweep(results.VaryUsers, 0)
		for i, w := range r.Summary.Server.Series.Windows {
			if i >= 60 { // the 40-user step
				pt := w.Points["requests_running"]
				pt.Value = tt.at40
				w.Points["requests_running"] = pt
			}
		}
		p, err := Derive(r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if c := p.Candidates[0]; c.Figure != "requests_running" || (c.Why == "") != tt.separates {
			t.Errorf("running %v at 40 users (27 at 30): %+v, want separates %v", tt.at40, c, tt.separates)
		}
	}
}

// TestSignalChoice: the gauges that do not track the load up to the
// capacity are passed over, each saying why, and an invalid run is
// refused unless forced.
func TestSignalChoice(t *testing.T) {
	set := func(r *results.Result, name string, f func(load float64) float64) {
		for i, w := range r.Summary.Server.Series.Windows {
			pt := w.Points[name]
			pt.Value = f(float64(10 * (i/20 + 1)))
			w.Points[name] = pt
		}
	}
	for _, tt := range []struct {
		name string
		edit func(r *results.Result)
		want string // the running gauge's Why
	}{
		{"tracks", func(*results.Result) {}, ""},
		{"flat", func(r *results.Result) { set(r, "requests_running", func(float64) float64 { return 7 }) }, "rho under 0.8: it does not track the load"},
		// Pinned from 20 users on: it would warn at 20, where nothing is
		// wrong.
		{"saturated early", func(r *results.Result) {
			set(r, "requests_running", func(l float64) float64 { return math.Min(l, 20) + l/1000 })
		}, "already at the warning level below the capacity"},
		{"expression", func(r *results.Result) {
			f := r.Summary.Server.Figures["requests_running"]
			f.Source = "a_total / b_total"
			r.Summary.Server.Figures["requests_running"] = f
		}, "an expression of several metrics"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := sweep(results.VaryUsers, 0)
			tt.edit(r)
			p, err := Derive(r, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if c := p.Candidates[0]; c.Figure != "requests_running" || c.Why != tt.want {
				t.Errorf("running: why %q, want %q (%+v)", c.Why, tt.want, c)
			}
			if tt.want != "" && p.Signal.Figure == "requests_running" {
				t.Errorf("chose running requests although %s", tt.want)
			}
		})
	}
	r := sweep(results.VaryUsers, 0)
	r.Validity = &results.Validity{Valid: false}
	if _, err := Derive(r, Options{}); err == nil || !strings.Contains(err.Error(), "invalid") {
		t.Errorf("an invalid run: err %v, want a refusal", err)
	}
	if _, err := Derive(r, Options{Force: true}); err != nil {
		t.Errorf("an invalid run, forced: %v", err)
	}
}

// TestOptionsRefused: choices that would write files Kubernetes or
// Prometheus reject, or a warning that fires in steady state.
func TestOptionsRefused(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{Headroom: 0.95, WarnShare: 0.5}, "over the warning share"},
		{Options{Namespace: "NS!"}, "namespace"},
		{Options{Deployment: "Bad_Name"}, "deployment"},
		{Options{PrometheusURL: "not a url"}, "prometheus URL"},
		{Options{For: "1.5s"}, "whole seconds"},
	} {
		if _, err := Derive(sweep(results.VaryUsers, 0), tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err %v, want one about %q", tt.o, err, tt.want)
		}
	}
	// A short window is written, with a note.
	p, err := Derive(sweep(results.VaryUsers, 0), Options{Window: "10s"})
	if err != nil || !strings.Contains(strings.Join(p.Notes, " "), "under a minute") {
		t.Errorf("window 10s: err %v, notes %q; want a note on the window", err, p.Notes)
	}
}

func TestSpearman(t *testing.T) {
	for _, tt := range []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{[]float64{1, 2, 3, 4}, []float64{40, 30, 20, 10}, -1},
		{[]float64{1, 2, 3, 4}, []float64{5, 5, 5, 5}, 0},
		// Ties take their mean rank: ranks (1.5, 1.5, 3, 4) against 1..4.
		{[]float64{1, 2, 3, 4}, []float64{0, 0, 1, 2}, 0.9486832980505138},
	} {
		if got := spearman(tt.x, tt.y); got-tt.want > 1e-9 || tt.want-got > 1e-9 {
			t.Errorf("spearman(%v, %v) = %v, want %v", tt.x, tt.y, got, tt.want)
		}
	}
}

// TestFiles decodes every file into the types its consumer reads: the HPA
// strictly into Kubernetes' autoscaling/v2 types and checked as the API
// server's validation would, the ScaledObject strictly into KEDA's fields,
// the rules as Prometheus' rule groups.
func TestFiles(t *testing.T) {
	p, err := Derive(sweep(results.VaryUsers, 0), Options{Source: "sweep.json", Version: "v1.2.3"})
	if err != nil {
		t.Fatal(err)
	}
	files, err := p.Files()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for n := range files {
		names = append(names, n)
	}
	if len(names) != 6 {
		t.Errorf("files %v, want 6", names)
	}
	for n, b := range files {
		if n == GrafanaFile {
			continue // JSON: checked below
		}
		for _, want := range []string{"llmload v1.2.3 from sweep.json", "Capacity: 30 users, in [30, 40)", "vllm:num_requests_running, 27.000 per replica"} {
			if !strings.Contains(strings.ReplaceAll(string(b), "\n#  ", " "), want) {
				t.Errorf("%s does not say where it came from (%q):\n%s", n, want, b)
			}
		}
	}

	var hpa autoscalingv2.HorizontalPodAutoscaler
	if err := sigsyaml.UnmarshalStrict(files[HPAFile], &hpa); err != nil {
		t.Fatalf("%s: %v", HPAFile, err)
	}
	if err := validateHPA(&hpa); err != nil {
		t.Errorf("%s: %v", HPAFile, err)
	}
	m := hpa.Spec.Metrics[0]
	if m.Pods.Metric.Name != "vllm_num_requests_running" || m.Pods.Target.AverageValue.AsApproximateFloat64() != 21.6 {
		t.Errorf("HPA metric %s target %v, want vllm_num_requests_running at 21.6 (80%% of 27)", m.Pods.Metric.Name, m.Pods.Target.AverageValue)
	}

	var so scaledObject
	dec := yaml.NewDecoder(bytes.NewReader(files[KEDAFile]))
	dec.KnownFields(true)
	if err := dec.Decode(&so); err != nil {
		t.Fatalf("%s: %v", KEDAFile, err)
	}
	tr := so.Spec.Triggers[0]
	if so.APIVersion != "keda.sh/v1alpha1" || so.Kind != "ScaledObject" || so.Spec.ScaleTargetRef["name"] == "" || tr.Type != "prometheus" || tr.MetricType != "AverageValue" {
		t.Errorf("ScaledObject %+v is not a KEDA prometheus ScaledObject", so)
	}
	if th, err := strconv.ParseFloat(tr.Metadata["threshold"], 64); err != nil || th != 21.6 {
		t.Errorf("KEDA threshold %q, want 21.6", tr.Metadata["threshold"])
	}
	for _, k := range []string{"serverAddress", "query", "threshold"} {
		if tr.Metadata[k] == "" {
			t.Errorf("KEDA trigger without %s", k)
		}
	}

	var dash struct {
		Description string
		Panels      []struct {
			Title       string
			FieldConfig struct {
				Defaults struct {
					Thresholds struct {
						Steps []struct {
							Value *float64
						}
					}
				}
			}
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(files[GrafanaFile], &dash); err != nil {
		t.Fatal(err)
	}
	var panels []string
	for _, pn := range dash.Panels {
		var steps []string
		for _, s := range pn.FieldConfig.Defaults.Thresholds.Steps {
			if s.Value != nil {
				steps = append(steps, num(*s.Value))
			}
		}
		panels = append(panels, pn.Title+" | "+pn.Targets[0].Expr+" | "+strings.Join(steps, ","))
	}
	wantPanels := []string{
		`vllm:num_requests_running per replica vs the measured capacity | sum by (instance, pod) (avg_over_time(vllm:num_requests_running{model_name="llama"}[5m])) | 24.3,27`,
		`SLA P99 TTFT <= 500 ms (the engine's histogram) | histogram_quantile(0.99, sum by (le, model_name) (rate(vllm:time_to_first_token_seconds_bucket{model_name="llama"}[5m]))) | 0.5`,
	}
	if diff := cmp.Diff(wantPanels, panels); diff != "" {
		t.Errorf("dashboard panels (-want +got):\n%s", diff)
	}
	if !strings.Contains(dash.Description, "Capacity: 30 users, in [30, 40)") {
		t.Errorf("the dashboard does not say where it came from: %q", dash.Description)
	}

	var rf ruleFile
	dec = yaml.NewDecoder(bytes.NewReader(files[RulesFile]))
	dec.KnownFields(true)
	if err := dec.Decode(&rf); err != nil {
		t.Fatal(err)
	}
	var exprs []string
	for _, r := range rf.Groups[0].Rules {
		exprs = append(exprs, r.Alert+": "+r.Expr)
	}
	want := []string{
		`LLMServerNearCapacity: sum by (instance, pod) (avg_over_time(vllm:num_requests_running{model_name="llama"}[5m])) > 24.3`,
		`LLMServerSLATTFTP99: histogram_quantile(0.99, sum by (le, model_name) (rate(vllm:time_to_first_token_seconds_bucket{model_name="llama"}[5m]))) > 0.5`,
	}
	if diff := cmp.Diff(want, exprs); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}

// validateHPA checks what Kubernetes' own validation of an autoscaling/v2
// HorizontalPodAutoscaler checks of the fields written here.
func validateHPA(h *autoscalingv2.HorizontalPodAutoscaler) error {
	s := h.Spec
	switch {
	case h.APIVersion != "autoscaling/v2" || h.Kind != "HorizontalPodAutoscaler":
		return errorf("apiVersion %q kind %q", h.APIVersion, h.Kind)
	case s.ScaleTargetRef.Kind == "" || s.ScaleTargetRef.Name == "":
		return errorf("scaleTargetRef needs kind and name")
	case s.MinReplicas == nil || *s.MinReplicas < 1 || s.MaxReplicas < *s.MinReplicas:
		return errorf("replicas: want 1 <= min <= max")
	case len(s.Metrics) == 0:
		return errorf("no metric")
	}
	for _, m := range s.Metrics {
		if m.Type != autoscalingv2.PodsMetricSourceType || m.Pods == nil || m.Object != nil || m.External != nil || m.Resource != nil {
			return errorf("metric of type %q must populate pods only", m.Type)
		}
		if n := m.Pods.Metric.Name; n == "" || strings.ContainsAny(n, "/%") {
			return errorf("metric name %q", n)
		}
		if m.Pods.Target.Type != autoscalingv2.AverageValueMetricType || m.Pods.Target.AverageValue == nil || m.Pods.Target.AverageValue.Sign() <= 0 {
			return errorf("pods target must be a positive averageValue")
		}
	}
	return nil
}

func errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }

// TestPromtool runs Prometheus' own checks on the rules and their unit
// tests, and shows the tests can fail: with the warning's threshold raised
// past the replica that should trip it, promtool test rules fails.
// Without promtool it skips, except in CI (CI=true), which installs it.
func TestPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("promtool is missing in CI: .ci/run installs Debian's prometheus package")
		}
		t.Skip("promtool is absent (apt-get install prometheus to run this test)")
	}
	for _, tt := range []struct {
		name string
		r    *results.Result
	}{
		{"vllm users", sweep(results.VaryUsers, 0)},
		{"vllm repeats", sweep(results.VaryUsers, 3)},
		{"unlabelled engine", func() *results.Result {
			r := sweep(results.VaryUsers, 0)
			f := r.Summary.Server.Figures
			f["requests_running"] = metrics.ServerFigure{Source: "llamacpp:requests_processing", Type: metrics.SeriesGauge}
			delete(f, "ttft")
			return r
		}()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Derive(tt.r, Options{For: "2m", Window: "1m"})
			if err != nil {
				t.Fatal(err)
			}
			files, err := p.Files()
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			for n, b := range files {
				if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			run := func(args ...string) (string, error) {
				cmd := exec.Command(promtool, args...)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				return string(out), err
			}
			if out, err := run("check", "rules", RulesFile); err != nil {
				t.Fatalf("promtool check rules: %v\n%s", err, out)
			}
			if out, err := run("test", "rules", TestsFile); err != nil {
				t.Fatalf("promtool test rules: %v\n%s", err, out)
			}
			broken := strings.Replace(string(files[RulesFile]), "> "+num(p.Warn()), "> "+num(p.Warn()*2), 1)
			if broken == string(files[RulesFile]) {
				t.Fatal("the warning's threshold is not in the rules")
			}
			if err := os.WriteFile(filepath.Join(dir, RulesFile), []byte(broken), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := run("test", "rules", TestsFile); err == nil {
				t.Errorf("promtool test rules passed with the warning's threshold doubled:\n%s", out)
			}
			// And with a page's bound doubled.
			for _, pg := range p.Pages {
				broken := strings.Replace(string(files[RulesFile]), "]))) > "+num(pg.Bound), "]))) > "+num(2*pg.Bound), 1)
				if broken == string(files[RulesFile]) {
					t.Fatalf("the page's bound %v is not in the rules", pg.Bound)
				}
				if err := os.WriteFile(filepath.Join(dir, RulesFile), []byte(broken), 0o644); err != nil {
					t.Fatal(err)
				}
				if out, err := run("test", "rules", TestsFile); err == nil {
					t.Errorf("promtool test rules passed with %s's bound doubled:\n%s", pg.Check, out)
				}
			}
		})
	}
}
