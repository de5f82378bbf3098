package ops

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strings"
)

// GrafanaFile is the dashboard Files writes.
const GrafanaFile = "grafana-dashboard.json"

// dashboard is a Grafana dashboard of the capacity: the load signal of
// each replica with the warning and the capacity's lower bound as
// threshold lines, and each page's quantile with the sla's bound. It reads
// the same Prometheus data source input as examples/grafana/llmload.json.
func (p *Plan) dashboard() ([]byte, error) {
	ds := map[string]string{"type": "prometheus", "uid": "${DS_PROMETHEUS}"}
	panel := func(id int, title, desc, expr, legend, unit string, steps []map[string]any) map[string]any {
		return map[string]any{
			"type": "timeseries", "title": title, "id": id, "datasource": ds, "description": desc,
			"gridPos": map[string]int{"h": 9, "w": 12, "x": 12 * ((id - 1) % 2), "y": 9 * ((id - 1) / 2)},
			"fieldConfig": map[string]any{
				"defaults": map[string]any{
					"unit":       unit,
					"thresholds": map[string]any{"mode": "absolute", "steps": steps},
					"custom":     map[string]any{"thresholdsStyle": map[string]string{"mode": "dashed"}},
				},
				"overrides": []any{},
			},
			"targets": []map[string]any{{"datasource": ds, "expr": expr, "legendFormat": legend, "refId": "A"}},
		}
	}
	step := func(colour string, v any) map[string]any { return map[string]any{"color": colour, "value": v} }
	var panels []map[string]any
	if p.Signal.Figure != "" {
		panels = append(panels, panel(len(panels)+1, p.Signal.Metric+" per replica vs the measured capacity",
			fmt.Sprintf("Warning at %s (%.0f%% of the capacity's lower bound), capacity %s per replica. %s", num(p.Warn()), 100*p.Options.WarnShare,
				num(round3(p.Signal.AtLower)), p.provenance()),
			fmt.Sprintf("%s (avg_over_time(%s%s[%s]))", p.perReplica(), p.Signal.Metric, p.selector(), p.Options.Window), "{{instance}} {{pod}}", "short",
			[]map[string]any{step("green", nil), step("orange", p.Warn()), step("red", round3(p.Signal.AtLower))}))
	}
	for _, pg := range p.Pages {
		by := "le"
		if l := p.modelLabel(); l != "" {
			by += ", " + l
		}
		panels = append(panels, panel(len(panels)+1, "SLA "+pg.Title+" (the engine's histogram)",
			fmt.Sprintf("The fleet's quantile %s of %s against the SLA's bound. %s", num(pg.Quantile), pg.Metric, p.provenance()),
			fmt.Sprintf("histogram_quantile(%s, sum by (%s) (rate(%s_bucket%s[%s])))", num(pg.Quantile), by, pg.Metric, p.selector(), p.Options.Window),
			"quantile "+num(pg.Quantile), "s", []map[string]any{step("green", nil), step("red", pg.Bound)}))
	}
	d := map[string]any{
		"__inputs":      []map[string]string{{"name": "DS_PROMETHEUS", "label": "Prometheus", "type": "datasource", "pluginId": "prometheus", "pluginName": "Prometheus"}},
		"title":         "llmload: capacity of " + nonEmpty(p.Scenario, "the run"),
		"uid":           fmt.Sprintf("llmload-capacity-%08x", crc32.ChecksumIEEE([]byte(p.Scenario+"\x00"+p.Model))),
		"description":   p.provenance(),
		"editable":      true,
		"schemaVersion": 39,
		"tags":          []string{"llmload", "capacity"},
		"time":          map[string]string{"from": "now-1h", "to": "now"},
		"refresh":       "30s",
		"panels":        panels,
	}
	b, err := json.MarshalIndent(d, "", "  ")
	return append(b, '\n'), err
}

// provenance is the header's first lines in one sentence, for JSON.
func (p *Plan) provenance() string {
	return fmt.Sprintf("Written by llmload %s from %s (scenario %q, run %s). %s", nonEmpty(p.Options.Version, "dev"),
		nonEmpty(p.Options.Source, "a result"), p.Scenario, p.RunID, strings.TrimSpace(p.capacityLine()))
}
