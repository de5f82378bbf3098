package report

import (
	"fmt"
	"strings"

	"github.com/llmload/llmload/results"
)

// maxConfigLines bounds the configuration changes a comparison prints
// (every one is in -format json's server_config_changes).
const maxConfigLines = 20

// configLines are a comparison's lines about the two servers: their
// configuration changes from the candidate's side ("candidate:
// max_num_seqs 128 (baseline 256)"), or why there are none to list, and
// the server figures whose engine metric drifted.
func configLines(c *results.Comparison) (changes []string, note string, drift []string) {
	for i, ch := range c.ServerConfigChanges {
		if i == maxConfigLines {
			changes = append(changes, fmt.Sprintf("... and %d more (server_config_changes in -format json)", len(c.ServerConfigChanges)-i))
			break
		}
		changes = append(changes, ch.String())
	}
	for _, d := range c.ServerMetricDrift {
		drift = append(drift, d.String())
	}
	return changes, c.ServerConfigNote, drift
}

// writeConfigText prints configLines for the console table.
func writeConfigText(p *printer, c *results.Comparison) {
	changes, note, drift := configLines(c)
	for _, f := range c.ForcedServerConfig {
		p.printf("WARNING: -force: a required server setting differs: %s\n", f)
	}
	if note != "" {
		p.printf("Server configuration: %s\n", note)
	}
	for _, ch := range changes {
		if strings.HasPrefix(ch, "... ") {
			p.printf("Server configuration: %s\n", ch)
			continue
		}
		p.printf("Server configuration: candidate: %s\n", ch)
	}
	for _, d := range drift {
		p.printf("Server metrics: %s\n", d)
	}
}

// writeConfigMarkdown writes configLines as Markdown.
func writeConfigMarkdown(p *printer, c *results.Comparison) {
	changes, note, drift := configLines(c)
	for _, f := range c.ForcedServerConfig {
		p.printf("> **Warning**: compared with -force although a required server setting differs: %s\n\n", mdText(f))
	}
	if note != "" {
		p.printf("Server configuration: %s.\n\n", mdText(note))
	}
	if len(changes) > 0 {
		p.printf("Server configuration, candidate against baseline:\n\n")
		for _, ch := range changes {
			p.printf("- %s\n", mdText(ch))
		}
		p.printf("\n")
	}
	if len(drift) > 0 {
		p.printf("Server metrics that changed name or went missing:\n\n")
		for _, d := range drift {
			p.printf("- %s\n", mdText(d))
		}
		p.printf("\n")
	}
}
