package ops

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/llmload/llmload/results"
)

// The files Files writes.
const (
	RulesFile   = "llmload-alerts.rules.yml"
	TestsFile   = "llmload-alerts.test.yml"
	HPAFile     = "hpa.yaml"
	AdapterFile = "prometheus-adapter-rules.yaml"
	KEDAFile    = "keda-scaledobject.yaml"
)

// Alert names.
const (
	WarnAlert = "LLMServerNearCapacity"
	pagePre   = "LLMServerSLA"
)

// Warn is the warning's threshold: the signal at the lower bound times
// the warning share.
func (p *Plan) Warn() float64 { return round3(p.Signal.AtLower * p.Options.WarnShare) }

// Target is the autoscaler's per-replica target: the signal at the lower
// bound times the headroom.
func (p *Plan) Target() float64 { return round3(p.Signal.AtLower * p.Options.Headroom) }

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// modelLabel is the label the engine puts the served model's name in.
func (p *Plan) modelLabel() string {
	switch p.Engine {
	case "vllm", "sglang":
		return "model_name"
	}
	return ""
}

// selector is the series selector of the model, "" when the engine does
// not label it, with more matchers ("namespace=\"x\"") after it.
func (p *Plan) selector(more ...string) string {
	var m []string
	if l := p.modelLabel(); l != "" && p.Model != "" {
		m = append(m, l+"="+strconv.Quote(p.Model))
	}
	m = append(m, more...)
	if len(m) == 0 {
		return ""
	}
	return "{" + strings.Join(m, ",") + "}"
}

// perReplica aggregates the signal's series per replica (the scrape
// target, or the pod under Kubernetes): a sum of counts, as llmload's
// scraper sums an engine's series (vLLM's data-parallel engines, several
// models), and the highest of fractions (KV-cache usage).
func (p *Plan) perReplica() string {
	if p.Signal.Figure == "kv_cache_usage" {
		return "max by (instance, pod)"
	}
	return "sum by (instance, pod)"
}

// deploymentPods selects the autoscaled Deployment's pods: its namespace,
// and pod names it gives its ReplicaSets' pods.
func (p *Plan) deploymentPods() []string {
	// <deployment>-<ReplicaSet hash>-<suffix>: not another Deployment
	// whose name begins the same (llm-server-canary-...).
	return []string{"namespace=" + strconv.Quote(p.Options.Namespace), "pod=~" + strconv.Quote(regexp.QuoteMeta(p.Options.Deployment)+"-[a-z0-9]+-[a-z0-9]+")}
}

// header is the provenance every file starts with, as YAML comments.
func (p *Plan) header(what string) string {
	var b strings.Builder
	line := func(format string, a ...any) {
		for _, l := range wrap(fmt.Sprintf(format, a...), 98) {
			b.WriteString("# " + l + "\n")
		}
	}
	line("%s", what)
	line("Written by llmload %s from %s (scenario %q, run %s).", nonEmpty(p.Options.Version, "dev"), nonEmpty(p.Options.Source, "a result"), p.Scenario, p.RunID)
	line("%s", p.capacityLine())
	held := ""
	if p.EngineHeld > 0 {
		held = fmt.Sprintf("; the engine held %.1f (running + waiting)", p.EngineHeld)
	}
	line("Little's law at the lower bound: %.1f requests in flight (arrival rate x mean E2E latency); the most measured there: %d%s.", p.Concurrency, p.Peak, held)
	if len(p.Pages) > 0 {
		var t []string
		for _, pg := range p.Pages {
			t = append(t, pg.Title)
		}
		line("SLA: %s.", strings.Join(t, "; "))
	}
	if p.Signal.Figure != "" {
		line("Load signal: %s, %.3f per replica at the lower bound (%s); warning at %.0f%% of it (%.3f), autoscaler target %.0f%% (%.3f).",
			p.Signal.Metric, p.Signal.AtLower, p.signalWhy(), 100*p.Options.WarnShare, p.Warn(), 100*p.Options.Headroom, p.Target())
	}
	for _, n := range p.Notes {
		line("Note: %s.", n)
	}
	line("Engine: %s. The measurement is of one replica as tested; docs/operations.md says what these rules do not cover.", nonEmpty(p.Engine, "unknown"))
	return b.String()
}

func (p *Plan) capacityLine() string {
	unit := map[string]string{"users": "users", "rate": "req/s", "max_concurrency": "concurrent requests"}[p.Vary]
	s := fmt.Sprintf("Capacity: %s %s", formatLoad(p.Capacity), unit)
	if p.Upper > 0 {
		s += fmt.Sprintf(", in [%s, %s)", formatLoad(p.Capacity), formatLoad(p.Upper))
	}
	if p.Runs > 0 {
		s += fmt.Sprintf(", met in %d of %d runs", p.RunsPassed, p.Runs)
	}
	return s + fmt.Sprintf("; lower bound %s %s.", formatLoad(p.Lower), unit)
}

func (p *Plan) signalWhy() string {
	var parts []string
	for _, c := range p.Candidates {
		s := fmt.Sprintf("%s rho %.2f, spread %.0f%%", c.Metric, c.Rho, 100*c.CV)
		if c.Why != "" {
			s += " (" + c.Why + ")"
		}
		parts = append(parts, s)
	}
	return "each gauge's rank correlation with the load over the steps and the spread of its readings at the bound: " + strings.Join(parts, "; ") +
		"; of those that track the load up to the capacity, the steadiest is chosen"
}

// wrap breaks text into lines of at most width runes at spaces, the
// lines after the first indented by two.
func wrap(text string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			out = append(out, line)
			line = " "
		}
		if line == "" || line == " " {
			line += w
		} else {
			line += " " + w
		}
	}
	return append(out, line)
}

// promDuration writes a duration as Prometheus does ("1m", "90s", "1h30m").
func promDuration(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	if d%time.Minute == 0 {
		return strconv.Itoa(int(d/time.Minute)) + "m"
	}
	if d%time.Second == 0 {
		return strconv.Itoa(int(d/time.Second)) + "s"
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

type ruleFile struct {
	Groups []ruleGroup `yaml:"groups"`
}

type ruleGroup struct {
	Name  string `yaml:"name"`
	Rules []rule `yaml:"rules"`
}

type rule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// rules are the alerting rules: the warning on the load signal and a page
// per sla check the engine's histograms can watch.
func (p *Plan) rules() []rule {
	var out []rule
	if p.Signal.Figure != "" {
		out = append(out, rule{
			Alert:  WarnAlert,
			Expr:   fmt.Sprintf("%s (avg_over_time(%s%s[%s])) > %s", p.perReplica(), p.Signal.Metric, p.selector(), p.Options.Window, num(p.Warn())),
			For:    p.Options.For,
			Labels: map[string]string{"severity": "warning"},
			Annotations: map[string]string{
				"summary": fmt.Sprintf("A replica is at %.0f%% of the lower bound of its measured capacity", 100*p.Options.WarnShare),
				"description": fmt.Sprintf("%s per replica passed %s; llmload measured %s at the capacity's lower bound (%s). Add replicas before the SLA breaks.",
					p.Signal.Metric, num(p.Warn()), num(p.Signal.AtLower), strings.TrimSuffix(strings.TrimPrefix(p.capacityLine(), "Capacity: "), ".")),
			},
		})
	}
	for _, pg := range p.Pages {
		by := "le"
		if l := p.modelLabel(); l != "" {
			by += ", " + l
		}
		out = append(out, rule{
			Alert:  pagePre + alertSuffix(pg.Check),
			Expr:   fmt.Sprintf("histogram_quantile(%s, sum by (%s) (rate(%s_bucket%s[%s]))) > %s", num(pg.Quantile), by, pg.Metric, p.selector(), p.Options.Window, num(pg.Bound)),
			For:    p.Options.For,
			Labels: map[string]string{"severity": "page"},
			Annotations: map[string]string{
				"summary":     "The SLA " + pg.Title + " is broken",
				"description": fmt.Sprintf("The engine's own %s histogram puts the fleet's quantile %s over %s s for %s.", pg.Metric, num(pg.Quantile), num(pg.Bound), p.Options.For),
			},
		})
	}
	return out
}

// alertSuffix turns "ttft_p99" into "TTFTP99".
func alertSuffix(check string) string {
	return strings.ToUpper(strings.ReplaceAll(check, "_", ""))
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Files returns the files to write, by name.
func (p *Plan) Files() (map[string][]byte, error) {
	out := map[string][]byte{}
	if p.Signal.Figure != "" && (p.Warn() < 0.001 || p.Target() < 0.001) {
		return nil, fmt.Errorf("the signal %s reads %g at the capacity: a threshold under 0.001 would always fire", p.Signal.Metric, p.Signal.AtLower)
	}
	rs := p.rules()
	if len(rs) == 0 {
		return nil, fmt.Errorf("nothing to alert on: %s", strings.Join(p.Notes, "; "))
	}
	b, err := marshal(p.header("Prometheus alerting rules (promtool check rules "+RulesFile+")."), ruleFile{Groups: []ruleGroup{{Name: "llmload-capacity", Rules: rs}}})
	if err != nil {
		return nil, err
	}
	out[RulesFile] = b
	if out[TestsFile], err = p.tests(rs); err != nil {
		return nil, err
	}
	if out[GrafanaFile], err = p.dashboard(); err != nil {
		return nil, err
	}
	if p.Signal.Figure == "" {
		return out, nil
	}
	if out[HPAFile], err = p.hpa(); err != nil {
		return nil, err
	}
	if out[AdapterFile], err = p.adapter(); err != nil {
		return nil, err
	}
	if out[KEDAFile], err = p.keda(); err != nil {
		return nil, err
	}
	return out, nil
}

func marshal(header string, v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(header)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

// adapterName is the custom metric's name through Prometheus Adapter: the
// engine's with ':' made '_' ("vllm_num_requests_running").
func (p *Plan) adapterName() string { return strings.ReplaceAll(p.Signal.Metric, ":", "_") }

func (p *Plan) hpa() ([]byte, error) {
	q, err := resource.ParseQuantity(quantity(p.Target()))
	if err != nil {
		return nil, err
	}
	minR := int32(p.Options.MinReplicas)
	h := autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: metav1.ObjectMeta{Name: p.Options.Deployment, Namespace: p.Options.Namespace},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: p.Options.Deployment},
			MinReplicas:    &minR,
			MaxReplicas:    int32(p.Options.MaxReplicas),
			Metrics: []autoscalingv2.MetricSpec{{
				Type: autoscalingv2.PodsMetricSourceType,
				Pods: &autoscalingv2.PodsMetricSource{
					Metric: autoscalingv2.MetricIdentifier{Name: p.adapterName()},
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &q},
				},
			}},
		},
	}
	j, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	// What the API server fills in has no place in a manifest.
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
	}
	y, err := sigsyaml.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append([]byte(p.header("Kubernetes HorizontalPodAutoscaler (autoscaling/v2) on the per-pod custom metric "+p.adapterName()+
		" that "+AdapterFile+" serves.")), y...), nil
}

// quantity renders a target as a Kubernetes quantity in thousandths.
func quantity(v float64) string {
	m := int64(math.Round(v * 1000))
	if m%1000 == 0 {
		return strconv.FormatInt(m/1000, 10)
	}
	return strconv.FormatInt(m, 10) + "m"
}

type adapterConfig struct {
	Rules []adapterRule `yaml:"rules"`
}

type adapterRule struct {
	SeriesQuery  string                    `yaml:"seriesQuery"`
	Resources    map[string]map[string]any `yaml:"resources"`
	Name         map[string]string         `yaml:"name"`
	MetricsQuery string                    `yaml:"metricsQuery"`
}

func (p *Plan) adapter() ([]byte, error) {
	c := adapterConfig{Rules: []adapterRule{{
		SeriesQuery: p.selector(fmt.Sprintf("__name__=%q", p.Signal.Metric), `namespace!=""`, `pod!=""`),
		Resources: map[string]map[string]any{"overrides": {
			"namespace": map[string]string{"resource": "namespace"},
			"pod":       map[string]string{"resource": "pod"},
		}},
		Name:         map[string]string{"matches": "^" + p.Signal.Metric + "$", "as": p.adapterName()},
		MetricsQuery: "sum(avg_over_time(<<.Series>>{<<.LabelMatchers>>}[" + p.Options.Window + "])) by (<<.GroupBy>>)",
	}}}
	return marshal(p.header("Prometheus Adapter rule: "+p.Signal.Metric+" of each pod as the custom metric "+p.adapterName()+
		" (needs the pod and namespace labels on the scraped series)."), c)
}

type scaledObject struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   map[string]string `yaml:"metadata"`
	Spec       scaledSpec        `yaml:"spec"`
}

type scaledSpec struct {
	ScaleTargetRef  map[string]string `yaml:"scaleTargetRef"`
	PollingInterval int               `yaml:"pollingInterval"`
	MinReplicaCount int               `yaml:"minReplicaCount"`
	MaxReplicaCount int               `yaml:"maxReplicaCount"`
	Triggers        []trigger         `yaml:"triggers"`
}

type trigger struct {
	Type       string            `yaml:"type"`
	MetricType string            `yaml:"metricType"`
	Metadata   map[string]string `yaml:"metadata"`
}

func (p *Plan) keda() ([]byte, error) {
	o := p.Options
	so := scaledObject{
		APIVersion: "keda.sh/v1alpha1", Kind: "ScaledObject",
		Metadata: map[string]string{"name": o.Deployment, "namespace": o.Namespace},
		Spec: scaledSpec{
			ScaleTargetRef:  map[string]string{"apiVersion": "apps/v1", "kind": "Deployment", "name": o.Deployment},
			PollingInterval: 15,
			MinReplicaCount: o.MinReplicas,
			MaxReplicaCount: o.MaxReplicas,
			Triggers: []trigger{{
				Type: "prometheus", MetricType: "AverageValue",
				Metadata: map[string]string{
					"serverAddress": o.PrometheusURL,
					"query":         fmt.Sprintf("sum(avg_over_time(%s%s[%s]))", p.Signal.Metric, p.selector(p.deploymentPods()...), o.Window),
					"threshold":     num(p.Target()),
				},
			}},
		},
	}
	return marshal(p.header("KEDA ScaledObject: replicas = the fleet's "+p.Signal.Metric+" over the per-replica target "+num(p.Target())+"."), so)
}

// The promtool unit tests: the warning fires for a replica just over its
// threshold and not for one just under; each page fires for a histogram
// whose quantile lies over the bound and stays silent for one under.
type testFile struct {
	RuleFiles          []string   `yaml:"rule_files"`
	EvaluationInterval string     `yaml:"evaluation_interval"`
	Tests              []ruleTest `yaml:"tests"`
}

type ruleTest struct {
	Name          string        `yaml:"name"`
	Interval      string        `yaml:"interval"`
	InputSeries   []inputSeries `yaml:"input_series"`
	AlertRuleTest []alertTest   `yaml:"alert_rule_test"`
}

type inputSeries struct {
	Series string `yaml:"series"`
	Values string `yaml:"values"`
}

type alertTest struct {
	EvalTime  string     `yaml:"eval_time"`
	Alertname string     `yaml:"alertname"`
	ExpAlerts []expAlert `yaml:"exp_alerts"`
}

type expAlert struct {
	ExpLabels      map[string]string `yaml:"exp_labels"`
	ExpAnnotations map[string]string `yaml:"exp_annotations"`
}

func (p *Plan) tests(rs []rule) ([]byte, error) {
	forD, err := time.ParseDuration(p.Options.For)
	if err != nil {
		return nil, fmt.Errorf("for %q: %w", p.Options.For, err)
	}
	win, err := time.ParseDuration(p.Options.Window)
	if err != nil {
		return nil, fmt.Errorf("window %q: %w", p.Options.Window, err)
	}
	step := time.Minute
	if win < 4*time.Minute {
		step = max(win/4, time.Second)
	}
	eval := (win + forD + 2*step).Round(step)
	samples := int(eval/step) + 2
	series := func(name string, labels map[string]string) string {
		var l []string
		if ml := p.modelLabel(); ml != "" && p.Model != "" {
			l = append(l, ml+"="+strconv.Quote(p.Model))
		}
		for _, k := range []string{"le", "instance", "engine"} {
			if v, ok := labels[k]; ok {
				l = append(l, k+"="+strconv.Quote(v))
			}
		}
		return name + "{" + strings.Join(l, ",") + "}"
	}
	labelsOf := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		if ml := p.modelLabel(); ml != "" && p.Model != "" {
			out[ml] = p.Model
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	tf := testFile{RuleFiles: []string{RulesFile}, EvaluationInterval: promDuration(step)}
	for _, r := range rs {
		if r.Alert == WarnAlert {
			over, under := round3(p.Warn()*1.05)+0.002, round3(p.Warn()*0.95)
			// The replica over its threshold reads it in two series
			// (vLLM's data-parallel engines): summed for counts, the
			// highest for a fraction.
			a := round3(over/2) + 0.001
			b := a
			if p.Signal.Figure == "kv_cache_usage" {
				a, b = over, under/2
			}
			checks := []alertTest{{EvalTime: promDuration(eval), Alertname: WarnAlert,
				ExpAlerts: []expAlert{{ExpLabels: map[string]string{"severity": "warning", "instance": "over"}, ExpAnnotations: r.Annotations}}}}
			if forD >= 2*step {
				// Not before its condition has held for "for".
				checks = append(checks, alertTest{EvalTime: promDuration(forD - step), Alertname: WarnAlert, ExpAlerts: []expAlert{}})
			}
			tf.Tests = append(tf.Tests, ruleTest{
				Name:     "the warning fires for a replica over " + num(p.Warn()) + " and not for one under",
				Interval: promDuration(step),
				InputSeries: []inputSeries{
					{Series: series(p.Signal.Metric, map[string]string{"instance": "over", "engine": "0"}), Values: fmt.Sprintf("%sx%d", num(a), samples)},
					{Series: series(p.Signal.Metric, map[string]string{"instance": "over", "engine": "1"}), Values: fmt.Sprintf("%sx%d", num(b), samples)},
					{Series: series(p.Signal.Metric, map[string]string{"instance": "under", "engine": "0"}), Values: fmt.Sprintf("%sx%d", num(under), samples)},
				},
				AlertRuleTest: checks,
			})
			continue
		}
		var pg Page
		for _, x := range p.Pages {
			if pagePre+alertSuffix(x.Check) == r.Alert {
				pg = x
			}
		}
		buckets := []float64{pg.Bound / 2, pg.Bound, 2 * pg.Bound}
		hist := func(firstFull int) []inputSeries {
			// Ten observations a step, all in bucket firstFull: the
			// buckets from it up count them, those under it none.
			var out []inputSeries
			for i, le := range append(buckets, math.Inf(1)) {
				v := "0x" + strconv.Itoa(samples)
				if i >= firstFull {
					v = "0+10x" + strconv.Itoa(samples)
				}
				les := num(le)
				if math.IsInf(le, 1) {
					les = "+Inf"
				}
				out = append(out, inputSeries{Series: series(pg.Metric+"_bucket", map[string]string{"le": les}), Values: v})
			}
			return out
		}
		tf.Tests = append(tf.Tests,
			ruleTest{
				Name: fmt.Sprintf("%s fires when the quantile lies between %s s and %s s", r.Alert, num(pg.Bound), num(2*pg.Bound)), Interval: promDuration(step),
				InputSeries: hist(2),
				AlertRuleTest: []alertTest{{EvalTime: promDuration(eval), Alertname: r.Alert,
					ExpAlerts: []expAlert{{ExpLabels: labelsOf(map[string]string{"severity": "page"}), ExpAnnotations: r.Annotations}}}},
			},
			ruleTest{
				Name: fmt.Sprintf("%s is silent when the quantile lies between %s s and %s s", r.Alert, num(pg.Bound/2), num(pg.Bound)), Interval: promDuration(step),
				InputSeries:   hist(1),
				AlertRuleTest: []alertTest{{EvalTime: promDuration(eval), Alertname: r.Alert, ExpAlerts: []expAlert{}}},
			})
	}
	return marshal(p.header("promtool unit tests of "+RulesFile+" (promtool test rules "+TestsFile+")."), tf)
}

// Describe writes what the plan found, for the console: the header's
// lines without their comment marks.
func (p *Plan) Describe() string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(p.header("From a measured capacity to alerts and autoscaling."), "\n"), "\n") {
		b.WriteString(strings.TrimPrefix(strings.TrimPrefix(l, "#"), " ") + "\n")
	}
	return b.String()
}

// Write derives the plan of r and writes its files into dir (made when
// missing): the plan and the paths written, sorted. Nothing is written
// when there is nothing to derive.
func Write(dir string, r *results.Result, o Options) (*Plan, []string, error) {
	p, err := Derive(r, o)
	if err != nil {
		return nil, nil, err
	}
	files, err := p.Files()
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	var paths []string
	for _, n := range names {
		path := filepath.Join(dir, n)
		if err := os.WriteFile(path, files[n], 0o644); err != nil {
			return nil, paths, err
		}
		paths = append(paths, path)
	}
	// An earlier run's files that this one does not give (no signal: no
	// autoscaler) would be deployed as if they were its.
	for _, n := range []string{RulesFile, TestsFile, HPAFile, AdapterFile, KEDAFile, GrafanaFile} {
		if _, ok := files[n]; ok {
			continue
		}
		path := filepath.Join(dir, n)
		if err := os.Remove(path); err == nil {
			p.Removed = append(p.Removed, path)
		} else if !os.IsNotExist(err) {
			return nil, paths, err
		}
	}
	return p, paths, nil
}
