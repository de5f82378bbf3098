package compare

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/llmload/llmload/metrics"
)

// Tolerance is how much worse than the baseline a figure may get before a
// comparison calls it a regression: ttft_p99 = "10%".
type Tolerance struct {
	// Key is the figure as written: "ttft_p99", "output_throughput".
	Key string `json:"key"`
	// Metric and Stat name it in the catalogue (Stat "" for a scalar).
	Metric string `json:"metric"`
	Stat   string `json:"stat,omitempty"`
	// Fraction is the tolerance: 0.10 for "10%". It is relative to the
	// baseline's value, except for a metric in the "fraction" unit (the
	// error rate), where it is absolute: error_rate = "1%" allows one
	// percentage point more (a baseline's error rate is often 0, and 10%
	// of nothing is nothing).
	Fraction float64 `json:"fraction"`
}

// Absolute reports whether the tolerance is in the metric's own unit
// (percentage points of a fraction) rather than relative to the baseline.
func (t Tolerance) Absolute() bool {
	m, _ := metrics.Lookup(t.Metric)
	return m.Unit == "fraction"
}

// String renders the tolerance as written: "ttft_p99=10%".
func (t Tolerance) String() string { return t.Key + "=" + Percent(t.Fraction) }

// Percent renders a fraction as a percentage: 0.1 -> "10%".
func Percent(f float64) string { return strconv.FormatFloat(f*100, 'f', -1, 64) + "%" }

// ParseKey reads a figure's key: <distribution>_<stat> ("ttft_p99",
// "user_tps_p50") or a scalar's name ("output_throughput", "error_rate"),
// from the metric catalogue. Only figures with a direction (lower or
// higher is better) can regress.
func ParseKey(key string) (metric, stat string, err error) {
	for _, m := range metrics.Catalogue {
		switch m.Kind {
		case metrics.Scalar:
			if key == m.Name {
				metric = m.Name
			}
		case metrics.Distribution:
			if s, ok := strings.CutPrefix(key, m.Name+"_"); ok && slices.Contains(metrics.Stats, s) && s != "count" {
				metric, stat = m.Name, s
			}
		}
		if metric != "" {
			if m.Better == metrics.Neither {
				return "", "", fmt.Errorf("%s describes the load, not its quality: it has no better or worse", key)
			}
			return metric, stat, nil
		}
	}
	return "", "", fmt.Errorf("%q is not a figure of the metric catalogue: write <metric>_<stat> (ttft_p99) or a scalar's name (output_throughput)%s", key, didYouMean(key))
}

// didYouMean suggests the figure a mistyped key meant, among those ParseKey
// reads.
func didYouMean(key string) string {
	var keys []string
	for _, m := range metrics.Catalogue {
		switch {
		case m.Better == metrics.Neither:
		case m.Kind == metrics.Scalar:
			keys = append(keys, m.Name)
		case m.Kind == metrics.Distribution:
			for _, s := range metrics.Stats {
				if s != "count" {
					keys = append(keys, m.Name+"_"+s)
				}
			}
		}
	}
	if best := metrics.Suggest(key, keys); best != "" {
		return "; did you mean " + best + "?"
	}
	return ""
}

// ParseFraction reads a tolerance value: "10%" or "2.5%".
func ParseFraction(v string) (float64, error) {
	num, ok := strings.CutSuffix(strings.TrimSpace(v), "%")
	if !ok {
		return 0, fmt.Errorf("tolerance %q is a percentage, such as \"10%%\"", v)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || f < 0 || f > 1000 {
		return 0, fmt.Errorf("tolerance %q is a percentage from 0%% to 1000%%, such as \"10%%\"", v)
	}
	return f / 100, nil
}

// ParseTolerance reads one key and value.
func ParseTolerance(key, value string) (Tolerance, error) {
	metric, stat, err := ParseKey(key)
	if err != nil {
		return Tolerance{}, err
	}
	f, err := ParseFraction(value)
	if err != nil {
		return Tolerance{}, fmt.Errorf("%s: %w", key, err)
	}
	return Tolerance{Key: key, Metric: metric, Stat: stat, Fraction: f}, nil
}

// ParseTolerances reads a comma-separated list of key=value:
// "ttft_p99=10%,itl_p99=10%,output_throughput=5%".
func ParseTolerances(spec string) ([]Tolerance, error) {
	var out []Tolerance
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want key=percentage, such as ttft_p99=10%%", part)
		}
		t, err := ParseTolerance(strings.TrimSpace(k), v)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o Tolerance) bool { return o.Key == t.Key }) {
			return nil, fmt.Errorf("%s is given twice", t.Key)
		}
		out = append(out, t)
	}
	return out, nil
}

// DefaultTolerances are what compare judges when neither the command line
// nor the baseline's scenario gives any.
var DefaultTolerances = mustParse("ttft_p99=10%,itl_p99=10%,output_throughput=5%")

func mustParse(spec string) []Tolerance {
	t, err := ParseTolerances(spec)
	if err != nil {
		panic(err)
	}
	return t
}
