package scenario

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeSweeps checks what each sweep and capacity block decodes to,
// and the load block it makes or keeps.
func TestDecodeSweeps(t *testing.T) {
	const head = `
target "t" {
  base_url = "sim://tiny"
}
dataset "d" {
  random {}
}
`
	tests := []struct {
		name, body string
		sweep      *Sweep
		capacity   *CapacitySearch
		open       *OpenLoop
		closed     *ClosedLoop
	}{
		{
			name: "users without a load block",
			body: `sweep {
    users    = [1, 10, 50]
    duration = "20s"
    cooldown = "2s"
  }`,
			sweep:  &Sweep{Vary: VaryUsers, Values: []float64{1, 10, 50}, Duration: 20 * time.Second, Cooldown: 2 * time.Second, KneeShare: 0.1},
			closed: &ClosedLoop{BackoffMin: DefaultBackoffMin, BackoffMax: DefaultBackoffMax},
		},
		{
			name: "users with think time",
			body: `closed_loop {
    think_time = "1s"
  }
  sweep {
    users      = [1, 2]
    requests   = 40
    knee_share = 0.2
  }`,
			sweep:  &Sweep{Vary: VaryUsers, Values: []float64{1, 2}, Requests: 40, KneeShare: 0.2},
			closed: &ClosedLoop{ThinkMin: time.Second, ThinkMax: time.Second, BackoffMin: DefaultBackoffMin, BackoffMax: DefaultBackoffMax},
		},
		{
			name: "rates take the scenario's duration",
			body: `duration = "30s"
  open_loop {
    arrival = "constant"
  }
  sweep {
    rate = [0.5, 2, 8]
  }`,
			sweep: &Sweep{Vary: VaryRate, Values: []float64{0.5, 2, 8}, Duration: 30 * time.Second, KneeShare: 0.1},
			open:  &OpenLoop{Arrival: ArrivalConstant, Burstiness: 1},
		},
		{
			name: "max_concurrency sends at once",
			body: `sweep {
    max_concurrency = [1, 4, 16]
    requests        = 64
  }`,
			sweep: &Sweep{Vary: VaryMaxConcurrency, Values: []float64{1, 4, 16}, Requests: 64, KneeShare: 0.1},
			open:  &OpenLoop{Rate: math.Inf(1), Arrival: ArrivalPoisson, Burstiness: 1},
		},
		{
			name: "capacity search",
			body: `capacity {
    vary         = "rate"
    min          = 1
    max          = 64
    precision    = "10%"
    duration     = "15s"
    min_requests = 200
    max_probes   = 12
  }`,
			capacity: &CapacitySearch{Vary: VaryRate, Min: 1, Max: 64, Precision: 0.1, Duration: 15 * time.Second, MinRequests: 200, MaxProbes: 12},
			open:     &OpenLoop{Arrival: ArrivalPoisson, Burstiness: 1},
		},
		{
			name: "capacity precision as a fraction",
			body: `capacity {
    vary      = "users"
    min       = 1
    max       = 32
    precision = 0.02
    requests  = 100
  }`,
			capacity: &CapacitySearch{Vary: VaryUsers, Min: 1, Max: 32, Precision: 0.02, Requests: 100},
			closed:   &ClosedLoop{BackoffMin: DefaultBackoffMin, BackoffMax: DefaultBackoffMax},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "s.hcl")
			src := head + "scenario \"s\" {\n  target  = target.t\n  dataset = dataset.d\n  " + tt.body + "\n}\n"
			if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, diags := Load([]string{p}, LoadOptions{})
			if diags.HasErrors() {
				var buf bytes.Buffer
				cfg.WriteDiagnostics(&buf, diags, Verbose)
				t.Fatalf("%s", buf.String())
			}
			s := cfg.Scenario("s")
			for _, c := range []struct {
				what      string
				want, got any
			}{{"sweep", tt.sweep, s.Sweep}, {"capacity", tt.capacity, s.Capacity}, {"open_loop", tt.open, s.OpenLoop}, {"closed_loop", tt.closed, s.ClosedLoop}} {
				if diff := cmp.Diff(c.want, c.got, ignoreHCL); diff != "" {
					t.Errorf("%s (-want +got):\n%s", c.what, diff)
				}
			}
		})
	}
}
