package metrics

import (
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Validate checks what a summary read from a file claims before anything
// is computed from it (merge, compare, a baseline): every count and
// figure of its own is a finite number, none negative; the counts agree
// with each other (no more defective, good or judged answers than
// completed ones); and every distribution's histogram decodes and holds
// its count of samples. A result edited by hand or cut short is refused
// with what is wrong, rather than merged into "5 of -987 requests".
func (s *Summary) Validate() error {
	if s == nil {
		return fmt.Errorf("no summary")
	}
	v := reflect.ValueOf(s).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		name := jsonName(f)
		switch fv.Kind() {
		case reflect.Int, reflect.Int64:
			if fv.Int() < 0 {
				return fmt.Errorf("%s is %d: a count is never negative", name, fv.Int())
			}
		case reflect.Float64:
			if x := fv.Float(); math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return fmt.Errorf("%s is %v: want a finite number, not negative", name, x)
			}
		case reflect.Map:
			if fv.Type().Elem().Kind() != reflect.Int {
				continue
			}
			for it := fv.MapRange(); it.Next(); {
				if it.Value().Int() < 0 {
					return fmt.Errorf("%s.%v is %d: a count is never negative", name, it.Key(), it.Value().Int())
				}
			}
		}
	}
	finished := 0
	for _, n := range s.Finish {
		finished += n
	}
	for _, c := range []struct {
		what   string
		n, of  int
		ofWhat string
	}{
		{"defective_outputs", s.DefectiveOutputs, s.Completed, "completed"},
		{"good_requests", s.GoodRequests, s.Completed, "completed"},
		{"finish reasons", finished, s.Completed, "completed"},
		{"expected_passed", s.ExpectedPassed, s.ExpectedJudged, "expected_judged"},
		{"referenced_answers", s.ReferencedAnswers, s.Completed, "completed"},
	} {
		if c.n > c.of {
			return fmt.Errorf("%s is %d, more than the %d %s", c.what, c.n, c.of, c.ofWhat)
		}
	}
	if a := s.Agreement; a != nil {
		if a.Pairs < 0 || a.Exact < 0 || a.Scored < 0 || a.Exact > a.Pairs || a.Scored > a.Pairs ||
			!(a.PrefixSum >= 0 && a.PrefixSum <= float64(a.Scored)) || !(a.SimilaritySum >= 0 && a.SimilaritySum <= float64(a.Scored)) {
			return fmt.Errorf("agreement: %d pairs, %d exact, %d scored, sums %v and %v do not add up", a.Pairs, a.Exact, a.Scored, a.PrefixSum, a.SimilaritySum)
		}
	}
	for _, m := range Catalogue {
		if m.Kind != Distribution {
			continue
		}
		l := m.dist(s)
		if l == nil {
			continue
		}
		if err := l.validate(); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
	}
	return nil
}

// validate checks a distribution's count, statistics and histogram.
func (l *Latency) validate() error {
	if l.Count < 0 || l.Outliers < 0 {
		return fmt.Errorf("count %d, outliers %d: never negative", l.Count, l.Outliers)
	}
	if l.Count > 0 {
		for _, x := range []float64{l.Mean, l.Stddev, l.Min, l.Max, l.P50, l.P90, l.P95, l.P99, l.P999, l.Sum, l.SumSq} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("a statistic of %d samples is %v", l.Count, x)
			}
		}
	}
	_, err := l.DecodeHistogram()
	return err
}

// jsonName is a field's name in the result file.
func jsonName(f reflect.StructField) string {
	if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != "" && tag != "-" {
		return tag
	}
	return f.Name
}
