package metrics

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A distribution without samples writes null statistics, never 0 ms, and
// reads back as the empty Latency.
func TestEmptyLatencyJSON(t *testing.T) {
	b, err := json.Marshal(Latency{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"count":0,"mean":null,"stddev":null,"min":null,"max":null,"p50":null,"p90":null,"p95":null,"p99":null,"p999":null,"sum":0,"sum_sq":0}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back Latency
	if err := json.Unmarshal(b, &back); err != nil || back != (Latency{}) {
		t.Errorf("read back %+v, %v", back, err)
	}
	full := Latency{Count: 1, Mean: 2, Min: 2, Max: 2, P50: 2, Sum: 2, SumSq: 4}
	b, _ = json.Marshal(full)
	if strings.Contains(string(b), "null") {
		t.Errorf("a distribution with samples has nulls: %s", b)
	}
	var back2 Latency
	if err := json.Unmarshal(b, &back2); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(full, back2); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}
