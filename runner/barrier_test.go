package runner

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestBarrier: shard 0's barrier releases every shard at one announced
// start with one run id, refuses another configuration, and turns away a
// shard that joins after the start.
func TestBarrier(t *testing.T) {
	b, err := startBarrier("http://127.0.0.1:0", "s", "fp", "run-7", 3, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	base := "http://" + b.ln.Addr().String()
	client := &http.Client{}
	ctx := context.Background()
	if _, err := joinOnce(ctx, client, base+"/join?shard=1&count=3&scenario=s&fingerprint=other"); err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Errorf("a shard of another configuration: %v, want a refusal", err)
	}
	type joined struct {
		a   *announce
		err error
	}
	ch := make(chan joined, 2)
	for i := 1; i <= 2; i++ {
		go func() {
			a, err := joinBarrier(ctx, client, base, "s", "fp", "", i, 3, 5*time.Second)
			ch <- joined{a, err}
		}()
	}
	start, err := b.wait(ctx, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		j := <-ch
		if j.err != nil || !j.a.StartAt.Equal(start) || j.a.RunID != "run-7" {
			t.Errorf("joined %+v, %v; want start %v, run-7", j.a, j.err, start)
		}
	}
	if d := time.Until(start); d <= 0 || d > 200*time.Millisecond {
		t.Errorf("start %v ahead, want within the 200ms lead", d)
	}
	if _, err := joinBarrier(ctx, client, base, "s", "fp", "", 1, 3, time.Second); err == nil || !strings.Contains(err.Error(), "already started") {
		t.Errorf("a late shard: %v, want a refusal", err)
	}
	if c := probeLeader(ctx, client, base); c.Error != "" || c.Probes != leaderProbes || math.Abs(c.OffsetMs) > c.UncertaintyMs+0.001 {
		t.Errorf("shard 0's clock on this machine: %s, want an interval holding 0", c)
	}
}

// TestEstimate: probes of a clock 2.3 s ahead, answering in whole seconds,
// narrow the offset by intersection; probes that disagree fall back on
// the median.
func TestEstimate(t *testing.T) {
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	const offset = 2300 * time.Millisecond
	at := func(sent time.Duration) probe {
		t1 := base.Add(sent)
		t2 := t1.Add(2 * time.Millisecond)
		mid := t1.Add(time.Millisecond)
		return probe{other: mid.Add(offset).Truncate(time.Second), t1: t1, t2: t2}
	}
	// Probes whose midpoints land just before and after the other clock's
	// change of second (ours at 0.7 s) pin the offset to a few ms.
	c := estimate([]probe{at(0), at(695 * time.Millisecond), at(1702 * time.Millisecond)}, time.Second, "1 s")
	if math.Abs(c.OffsetMs-2300) > c.UncertaintyMs || c.UncertaintyMs > 5 || c.RTTMs != 2 {
		t.Errorf("estimate %s, want 2300 ms within a few ms", c)
	}
	// One probe: a second wide.
	if c := estimate([]probe{at(0)}, time.Second, "1 s"); math.Abs(c.OffsetMs-2300) > c.UncertaintyMs || c.UncertaintyMs < 400 {
		t.Errorf("one probe: %s, want 2300 ms within about half a second", c)
	}
	stepped := at(3 * time.Second)
	stepped.other = stepped.other.Add(5 * time.Second)
	if c := estimate([]probe{at(0), at(time.Second), stepped}, time.Second, "1 s"); c.UncertaintyMs < 500 {
		t.Errorf("disagreeing probes: %s, want the median with half a second of uncertainty", c)
	}
	if c := estimate(nil, time.Second, "1 s"); c.Error == "" {
		t.Error("no probes: no error")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotFound) }))
	defer srv.Close()
	if c := probeDate(context.Background(), srv.Client(), srv.URL, 1); c.Error != "" || c.Probes != 1 || math.Abs(c.OffsetMs) > c.UncertaintyMs+1 {
		t.Errorf("a local server's Date: %s, want an interval holding 0", c)
	}
}
