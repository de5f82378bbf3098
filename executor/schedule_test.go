package executor

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/dataset"
)

func TestScheduleRate(t *testing.T) {
	const n = 20000
	for _, tc := range []struct {
		name   string
		o      OpenLoop
		wantCV float64 // coefficient of variation of the gaps: 1/sqrt(shape)
	}{
		{"poisson", OpenLoop{Rate: 50, Arrival: ArrivalPoisson}, 1},
		{"default is poisson", OpenLoop{Rate: 50}, 1},
		{"gamma bursty", OpenLoop{Rate: 200, Arrival: ArrivalGamma, Burstiness: 0.25}, 2},
		{"gamma regular", OpenLoop{Rate: 5, Arrival: ArrivalGamma, Burstiness: 4}, 0.5},
		{"constant", OpenLoop{Rate: 8, Arrival: ArrivalConstant}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			offs := Schedule(tc.o, n, 42)
			if len(offs) != n || offs[0] != 0 {
				t.Fatalf("got %d arrivals starting at %v, want %d starting at 0", len(offs), offs[0], n)
			}
			var sum, sq float64
			for i := 1; i < n; i++ {
				gap := (offs[i] - offs[i-1]).Seconds()
				if gap < 0 {
					t.Fatalf("arrival %d is before arrival %d", i, i-1)
				}
				sum += gap
				sq += gap * gap
			}
			mean := sum / (n - 1)
			cv := math.Sqrt(max(sq/(n-1)-mean*mean, 0)) / mean
			if rate := 1 / mean; math.Abs(rate-tc.o.Rate)/tc.o.Rate > 0.03 {
				t.Errorf("rate %.3f, want %.3f within 3%%", rate, tc.o.Rate)
			}
			if math.Abs(cv-tc.wantCV) > 0.1*max(tc.wantCV, 0.01) {
				t.Errorf("gap coefficient of variation %.3f, want %.3f within 10%%", cv, tc.wantCV)
			}
		})
	}
}

func TestScheduleIsSeeded(t *testing.T) {
	o := OpenLoop{Rate: 10, Arrival: ArrivalGamma, Burstiness: 0.5}
	a, b, c := Schedule(o, 100, 1), Schedule(o, 100, 1), Schedule(o, 100, 2)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different schedules (-want +got):\n%s", diff)
	}
	if cmp.Equal(a, c) {
		t.Error("different seeds gave the same schedule")
	}
	// A longer schedule starts with the same draws, scaled to its own span.
	long := Schedule(o, 200, 1)
	ratio := float64(a[99]) / float64(long[99])
	for i := range 99 {
		// Offsets are rounded to the nanosecond.
		if d := float64(a[i]) - ratio*float64(long[i]); math.Abs(d) > 2 {
			t.Fatalf("arrival %d: %v, want the longer schedule's %v scaled by %.6f", i, a[i], long[i], ratio)
		}
	}
}

// As in vLLM's benchmark, the arrivals are scaled to span exactly their
// expected length: the last one at (n-1)/rate, whatever the seed.
func TestScheduleSpan(t *testing.T) {
	for _, o := range []OpenLoop{
		{Rate: 7, Arrival: ArrivalPoisson},
		{Rate: 250, Arrival: ArrivalGamma, Burstiness: 0.2},
		{Rate: 0.5, Arrival: ArrivalGamma, Burstiness: 3},
		{Rate: 3, Arrival: ArrivalConstant},
	} {
		for _, n := range []int{2, 10, 1000} {
			want := time.Duration(math.Round(float64(n-1) / o.Rate * float64(time.Second)))
			for seed := range int64(5) {
				offs := Schedule(o, n, seed)
				if got := offs[n-1]; got != want {
					t.Errorf("%s rate %v, %d arrivals, seed %d: last at %v, want %v", o.Arrival, o.Rate, n, seed, got, want)
				}
				if !slices.IsSorted(offs) || offs[0] != 0 {
					t.Errorf("%s rate %v, %d arrivals, seed %d: %v..., not in order from 0", o.Arrival, o.Rate, n, seed, offs[:2])
				}
			}
		}
	}
}

func TestScheduleEdges(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    OpenLoop
		n    int
		want []time.Duration
	}{
		{"inf", OpenLoop{Rate: math.Inf(1)}, 3, []time.Duration{0, 0, 0}},
		{"constant", OpenLoop{Rate: 4, Arrival: ArrivalConstant}, 4, []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond}},
		{"none", OpenLoop{Rate: 4}, 0, nil},
	} {
		if diff := cmp.Diff(tc.want, Schedule(tc.o, tc.n, 7)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestUserSteps(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name   string
		stages []Stage
		want   []step
	}{
		{"one stage", []Stage{{Users: 5, Duration: 10 * s}}, []step{{0, 5}}},
		{"ramp up from zero", []Stage{{Users: 4, Duration: 10 * s, Ramp: 4 * s}},
			[]step{{0, 1}, {s, 2}, {2 * s, 3}, {3 * s, 4}}},
		{"steps and a ramp down", []Stage{{Users: 2, Duration: 5 * s}, {Users: 6, Duration: 5 * s}, {Users: 3, Duration: 5 * s, Ramp: 3 * s}},
			[]step{{0, 2}, {5 * s, 6}, {10 * s, 5}, {11 * s, 4}, {12 * s, 3}}},
		{"ramp of one user", []Stage{{Users: 1, Duration: 5 * s, Ramp: 2 * s}}, []step{{0, 1}}},
	} {
		if diff := cmp.Diff(tc.want, userSteps(tc.stages), cmp.AllowUnexported(step{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestStageAt(t *testing.T) {
	s := time.Second
	stages := []Stage{{Users: 1, Duration: 2 * s}, {Users: 2, Duration: 3 * s}, {Users: 3}}
	for _, tc := range []struct {
		at   time.Duration
		want int
	}{{0, 0}, {2*s - 1, 0}, {2 * s, 1}, {5*s - 1, 1}, {5 * s, 2}, {time.Hour, 2}} {
		if got := stageAt(stages, tc.at); got != tc.want {
			t.Errorf("stageAt(%v) = %d, want %d", tc.at, got, tc.want)
		}
	}
	if got := stageAt(stages[:2], time.Hour); got != 1 {
		t.Errorf("after the last stage: %d, want 1", got)
	}
}

// TestArrivals: the schedule a run dispatches, cut by the duration (an
// arrival exactly at the duration is not sent).
func TestArrivals(t *testing.T) {
	reqs := make([]dataset.Request, 10)
	tests := []struct {
		name string
		p    Plan
		want int
	}{
		{"rate x duration lands on an arrival", Plan{Requests: reqs, Open: &OpenLoop{Rate: 20, Arrival: ArrivalConstant}, Duration: time.Second, MaxRequests: 30}, 20},
		{"requests fewer than the duration allows", Plan{Requests: reqs, Open: &OpenLoop{Rate: 20, Arrival: ArrivalConstant}, Duration: time.Second, MaxRequests: 7}, 7},
		{"no request count: the dataset", Plan{Requests: reqs, Open: &OpenLoop{Rate: 20, Arrival: ArrivalConstant}}, 10},
		{"rate inf ignores the duration", Plan{Requests: reqs, Open: &OpenLoop{Rate: math.Inf(1)}, Duration: time.Second, MaxRequests: 15}, 15},
		{"closed loop has none", Plan{Requests: reqs, Closed: &ClosedLoop{}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Arrivals(tt.p)
			if len(got) != tt.want {
				t.Fatalf("%d arrivals, want %d", len(got), tt.want)
			}
			for _, at := range got {
				if d := tt.p.Duration; d > 0 && at >= d {
					t.Errorf("arrival at %v is not before the duration %v", at, d)
				}
			}
		})
	}
}
