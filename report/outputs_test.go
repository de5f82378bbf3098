package report

import (
	"strings"
	"testing"

	"github.com/llmload/llmload/metrics"
)

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
