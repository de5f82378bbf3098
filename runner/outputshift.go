package runner

import (
	"fmt"
	"math"
	"strings"

	"github.com/llmload/llmload/metrics"
)

// The thresholds of a sharp change of the outputs against a baseline
// (docs/outputs.md). A share (of defective outputs, of requests ending at
// max_tokens, of expected answers met) moved sharply when it moved by at
// least ShiftPoints and, itself or its complement, at least doubled or
// halved: 0% -> 12% and 60% -> 100% (40% -> 0% stopping) are sharp, 50% ->
// 60% is not. The output length ratio moved sharply when the smaller of
// the two is at most ShiftLength of the larger: answers a quarter shorter,
// or a third longer.
const (
	ShiftPoints = 0.10
	ShiftLength = 0.75
)

// OutputShift names the output figures that moved sharply from base to
// cand, in one sentence ("" when none did, or a side has no summary). It
// is a note, not a check: the asserts on these figures judge a run; this
// says what changed when a run is compared with a baseline.
func OutputShift(base, cand *metrics.Summary) string {
	if base == nil || cand == nil {
		return ""
	}
	var parts []string
	for _, f := range []struct {
		title string
		share bool
		value func(*metrics.Summary) float64
	}{
		{"defective outputs", true, (*metrics.Summary).OutputDefectRate},
		{"requests ending at max_tokens", true, lengthShare},
		{"output length against the dataset's answers", false, (*metrics.Summary).OutputLengthRatio},
		{"expected answers met", true, (*metrics.Summary).PassRate},
	} {
		b, c := f.value(base), f.value(cand)
		if math.IsNaN(b) || math.IsNaN(c) {
			continue
		}
		sharp := sharpLength(b, c)
		if f.share {
			sharp = sharpShare(b, c)
		}
		if sharp {
			parts = append(parts, fmt.Sprintf("%s %.1f%% -> %.1f%%", f.title, 100*b, 100*c))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Outputs changed sharply against the baseline: " + strings.Join(parts, "; ") + "."
}

// OutputNotes is a comparison's note of the output figures that moved
// sharply (OutputShift), or none.
func OutputNotes(base, cand *metrics.Summary) []string {
	if n := OutputShift(base, cand); n != "" {
		return []string{n}
	}
	return nil
}

// lengthShare is the share of completed requests whose finish reason was
// length (NaN when none completed).
func lengthShare(s *metrics.Summary) float64 {
	if s.Completed == 0 {
		return math.NaN()
	}
	return float64(s.Finish["length"]) / float64(s.Completed)
}

// sharpShare: a share moved by ShiftPoints or more, and it or its
// complement at least doubled or halved.
func sharpShare(b, c float64) bool {
	doubled := func(x, y float64) bool { return max(x, y) >= 2*min(x, y) }
	return math.Abs(c-b) >= ShiftPoints-1e-9 && (doubled(b, c) || doubled(1-b, 1-c))
}

// sharpLength: the smaller ratio is ShiftLength of the larger or less.
func sharpLength(b, c float64) bool {
	return max(b, c) > 0 && min(b, c) <= ShiftLength*max(b, c)
}
