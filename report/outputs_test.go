package report

import (
	"strings"
	"testing"

	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/results"
)

// TestComparisonNotes: a comparison's notes follow its verdict in the
// console and in Markdown; a comparison without notes prints none.
func TestComparisonNotes(t *testing.T) {
	note := "Outputs changed sharply against the baseline: defective outputs 0.0% -> 41.2%."
	for _, tt := range []struct {
		name  string
		notes []string
	}{
		{"sharp", []string{note}},
		{"not sharp", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := &results.Comparison{Baseline: "base.json", BaseRunID: "b", Notes: tt.notes}
			var text, md strings.Builder
			if err := WriteComparison(&text, c); err != nil {
				t.Fatal(err)
			}
			if err := WriteComparisonMarkdown(&md, c); err != nil {
				t.Fatal(err)
			}
			wantText := "Comparison: pass\n"
			if tt.notes != nil {
				wantText += note + "\n"
			}
			if !strings.HasSuffix(text.String(), wantText) {
				t.Errorf("console ends %q; want %q", text.String(), wantText)
			}
			for name, out := range map[string]string{"console": text.String(), "markdown": md.String()} {
				if got := strings.Contains(out, "changed sharply"); got != (tt.notes != nil) {
					t.Errorf("%s names a sharp change: %v; want %v:\n%s", name, got, tt.notes != nil, out)
				}
			}
		})
	}
}

// TestConsoleOutputLength: the console holds the answers' length against
// the dataset's recorded answers only when it recorded some.
func TestConsoleOutputLength(t *testing.T) {
	for _, tt := range []struct {
		name string
		sum  func(*metrics.Summary)
		want string // "" when no line
	}{
		{"no reference", func(*metrics.Summary) {}, ""},
		{"references", func(s *metrics.Summary) {
			s.ReferencedAnswers, s.ReferenceTokens, s.ReferencedOutputTokens = 4, 400, 100
		}, "Output length: 4 answers to prompts with an answer in the dataset gave 100 tokens against its 400 (output_length_ratio 25.0%).\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := result(t, openLoopRun())
			tt.sum(r.Summary)
			var b strings.Builder
			if err := WriteConsole(&b, r); err != nil {
				t.Fatal(err)
			}
			got := strings.Contains(b.String(), "Output length:")
			if got != (tt.want != "") || tt.want != "" && !strings.Contains(b.String(), tt.want) {
				t.Errorf("console:\n%s\nwant the line %q", b.String(), tt.want)
			}
		})
	}
}
