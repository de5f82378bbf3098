package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/llmload/llmload/results"
)

// The configuration changes, the required settings a -force comparison
// ignored, the note and the metric drift, in the console and in Markdown;
// the changes are bounded.
func TestComparisonServerConfig(t *testing.T) {
	c := &results.Comparison{Baseline: "a.json", BaseRunID: "r",
		ServerConfigChanges: []results.ConfigChange{{Key: "max_num_seqs", Base: "256", New: "128", BaseHas: true, NewHas: true}},
		ForcedServerConfig:  []string{"max_num_seqs: 256 vs 128"},
		ServerMetricDrift:   []results.MetricDrift{{Figure: "kv_cache_usage", Base: "vllm:gpu_cache_usage_perc", New: "vllm:kv_cache_usage_perc"}},
	}
	for i := range 30 {
		c.ServerConfigChanges = append(c.ServerConfigChanges, results.ConfigChange{Key: fmt.Sprintf("k%02d", i), Base: "1", New: "2", BaseHas: true, NewHas: true})
	}
	var text, md bytes.Buffer
	if err := WriteComparison(&text, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteComparisonMarkdown(&md, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"WARNING: -force: a required server setting differs: max_num_seqs: 256 vs 128",
		"Server configuration: candidate: max_num_seqs 128 (baseline 256)",
		"Server configuration: ... and 11 more (server_config_changes in -format json)",
		"Server metrics: server.kv_cache_usage is read from vllm:kv_cache_usage_perc on the candidate's server, from vllm:gpu_cache_usage_perc on the baseline's (a renamed metric)",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the console lacks %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{"- max\\_num\\_seqs 128 (baseline 256)", "Server metrics that changed name or went missing", "required server setting differs"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
		}
	}
	c = &results.Comparison{ServerConfigNote: "the servers exposed no configuration"}
	text.Reset()
	WriteComparison(&text, c)
	if n := strings.Count(text.String(), "the servers exposed no configuration"); n != 1 {
		t.Errorf("the note is said %d times:\n%s", n, text.String())
	}
}
