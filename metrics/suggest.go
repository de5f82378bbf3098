package metrics

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/agext/levenshtein"
)

// percentileName splits a percentile's name into what comes before its
// "p" and its number: "ttft_p99" is ("ttft_", "99"), the statistic "p999"
// ("", "999"), "min_user_tps_p90" ("min_user_tps_", "90").
var percentileName = regexp.MustCompile(`^(|.*_)p([0-9]+(?:\.[0-9]+)?)$`)

// percentileNumber reads the percentile a name's number stands for: two
// digits are themselves (p95 is 95), more are decimals after the first
// two (p999 is 99.9, p9999 99.99), a decimal point is taken as written
// (p99.9), and 100 is 100.
func percentileNumber(num string) float64 {
	if len(num) > 2 && num != "100" && !strings.Contains(num, ".") {
		num = num[:2] + "." + num[2:]
	}
	v, _ := strconv.ParseFloat(num, 64)
	return v
}

// Suggest returns the name among names that a mistyped metric name (or
// statistic) given most likely meant, or "" when none is close. A
// percentile of a metric ("ttft_p96", or the statistic alone, "p96")
// suggests the numerically nearest percentile of the same metric among
// names (ttft_p95: an edit distance would find ttft_p50 as near); any
// other name the nearest by edit distance, when under 3 edits (hcl's own
// rule for its "Did you mean"), the first of equals.
func Suggest(given string, names []string) string {
	if m := percentileName.FindStringSubmatch(given); m != nil {
		want := percentileNumber(m[2])
		best, bestD := "", 0.0
		for _, n := range names {
			c := percentileName.FindStringSubmatch(n)
			if c == nil || c[1] != m[1] || n == given {
				continue
			}
			if d := math.Abs(percentileNumber(c[2]) - want); best == "" || d < bestD {
				best, bestD = n, d
			}
		}
		if best != "" {
			return best
		}
	}
	best, bestD := "", 3
	for _, n := range names {
		if d := levenshtein.Distance(given, n, nil); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}
