package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// startDeployment starts n replicas of the tiny profile, with overrides,
// behind the balancer on a free loopback port.
func startDeployment(t *testing.T, n int, overrides map[string]string) *Deployment {
	t.Helper()
	p, err := LookupProfile("tiny")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range overrides {
		if err := p.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	d, err := ListenDeployment("127.0.0.1:0", p, 1, n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d
}

func TestParseReplicas(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    int
		wantErr string
	}{
		{in: "1", want: 1},
		{in: " 2 ", want: 2},
		{in: "64", want: 64},
		{in: "0", wantErr: "replicas = 0: a simulated deployment has 1 to 64 replicas"},
		{in: "-3", wantErr: "replicas = -3: a simulated deployment has 1 to 64 replicas"},
		{in: "65", wantErr: "replicas = 65: a simulated deployment has 1 to 64 replicas"},
		{in: "1.5", wantErr: `replicas: "1.5" is not a whole number of replicas (1 to 64)`},
		{in: "two", wantErr: `replicas: "two" is not a whole number of replicas (1 to 64)`},
	} {
		got, err := ParseReplicas(tt.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if gotErr != tt.wantErr || (err == nil && got != tt.want) {
			t.Errorf("ParseReplicas(%q) = %d, %q; want %d, %q", tt.in, got, gotErr, tt.want, tt.wantErr)
		}
	}
}

// One replica is the plain simulator: no balancer, the replica's own URL
// and the deployment's seed.
func TestOneReplicaIsThePlainSimulator(t *testing.T) {
	d := startDeployment(t, 1, nil)
	if len(d.Replicas) != 1 || d.URL != d.Replicas[0].URL || d.balancer != nil {
		t.Fatalf("URL %s, %d replicas, balancer %v: want the one replica's URL and no balancer", d.URL, len(d.Replicas), d.balancer != nil)
	}
	if ReplicaSeed(7, 0) != 7 || ReplicaSeed(7, 1) == ReplicaSeed(7, 0) || ReplicaSeed(7, 2) == ReplicaSeed(7, 1) {
		t.Errorf("replica seeds %d, %d, %d: want the deployment's seed first, then distinct ones", ReplicaSeed(7, 0), ReplicaSeed(7, 1), ReplicaSeed(7, 2))
	}
}

// The balancer sends each request to the next replica in turn, whatever
// the path; /v1/models, /tokenize and /health answer through it as from
// a replica.
func TestBalancerRoundRobin(t *testing.T) {
	d := startDeployment(t, 3, nil)
	requests := func() []int64 {
		var n []int64
		for _, r := range d.Replicas {
			n = append(n, r.Server.Stats().Requests)
		}
		return n
	}
	var order []int
	for range 7 {
		before := requests()
		res := post(t, d.URL+"/v1/completions", map[string]any{"prompt": "a b c", "max_tokens": 3, "ignore_eos": true})
		if res.status != http.StatusOK {
			t.Fatalf("status %d: %s", res.status, res.body)
		}
		after := requests()
		for i := range after {
			if after[i] != before[i] {
				order = append(order, i)
			}
		}
	}
	if diff := cmp.Diff([]int{0, 1, 2, 0, 1, 2, 0}, order); diff != "" {
		t.Errorf("replicas that served 7 requests in a row (-want +got):\n%s", diff)
	}
	if st := d.Stats(); st.Requests != 7 || st.Steps < 7*3 {
		t.Errorf("the deployment's stats: %d requests, %d steps; want 7 and at least 21", st.Requests, st.Steps)
	}

	if code, body := getBody(t, d.URL+"/health"); code != http.StatusOK {
		t.Errorf("/health through the balancer: %d %s", code, body)
	}
	code, body := getBody(t, d.URL+"/v1/models")
	if code != http.StatusOK || !strings.Contains(body, `"id":"sim-tiny"`) {
		t.Errorf("/v1/models through the balancer: %d %s", code, body)
	}
	resp, err := http.Post(d.URL+"/tokenize", "application/json", strings.NewReader(`{"prompt":"one two three"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		Count int `json:"count"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || resp.StatusCode != http.StatusOK || tok.Count != 3 {
		t.Errorf("/tokenize through the balancer: %d, count %d, %v", resp.StatusCode, tok.Count, err)
	}
}

// A stream passes through the balancer event by event: the client reads
// the first events while the replica is still generating the rest (a
// buffering proxy would hold them until the 20 s reply ends), and a
// client that leaves frees its sequence on the replica.
func TestBalancerStreamsEventByEvent(t *testing.T) {
	// 400 tokens at a step of 50 ms or more: at least 20 s of stream.
	d := startDeployment(t, 2, map[string]string{"step_overhead": "50ms"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", d.URL+"/v1/completions",
		strings.NewReader(`{"prompt":"x","max_tokens":400,"ignore_eos":true,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("status %d, Content-Type %q", resp.StatusCode, ct)
	}
	br := bufio.NewReader(resp.Body)
	events := 0
	for events < 3 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d events: %v", events, err)
		}
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "data: "); ok {
			if p == "[DONE]" {
				t.Fatal("the stream ended after 3 events of 400")
			}
			events++
		}
	}
	replica := d.Replicas[0].Server
	if st := replica.Stats(); st.Running != 1 {
		t.Fatalf("replica 0 runs %d sequences after the client read 3 events; want its 1 still generating", st.Running)
	}
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for st := replica.Stats(); st.Running != 0 || st.KVUsed != 0; st = replica.Stats() {
		if time.Now().After(deadline) {
			t.Fatalf("10 s after the client left through the balancer, replica 0 still holds its sequence: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Each replica's /metrics counts only the requests it served; the
// balancer's /metrics has every replica's series, each with its replica
// label, so that summing them gives the deployment's figures.
func TestReplicaMetrics(t *testing.T) {
	d := startDeployment(t, 2, nil)
	for range 3 {
		if res := post(t, d.URL+"/v1/completions", map[string]any{"prompt": "a b c", "max_tokens": 5, "ignore_eos": true}); res.status != http.StatusOK {
			t.Fatalf("status %d: %s", res.status, res.body)
		}
	}
	const labels = `engine="0",finished_reason="length",model_name="sim-tiny"`
	for i, want := range []int{2, 1} {
		_, m := getBody(t, d.Replicas[i].URL+"/metrics")
		for _, line := range []string{
			fmt.Sprintf(`vllm:request_success_total{%s} %d`, labels, want),
			fmt.Sprintf(`vllm:generation_tokens_total{engine="0",model_name="sim-tiny"} %d`, 5*want),
			fmt.Sprintf(`vllm:time_to_first_token_seconds_count{engine="0",model_name="sim-tiny"} %d`, want),
		} {
			if !strings.Contains(m, line+"\n") {
				t.Errorf("replica %d's /metrics lacks %q", i, line)
			}
		}
		if strings.Contains(m, ReplicaLabel+"=") {
			t.Errorf("replica %d's own /metrics carries a %s label; a replica knows nothing of the others", i, ReplicaLabel)
		}
	}
	_, m := getBody(t, d.URL+"/metrics")
	for _, line := range []string{
		`vllm:request_success_total{` + labels + `,replica="0"} 2`,
		`vllm:request_success_total{` + labels + `,replica="1"} 1`,
		`vllm:num_requests_running{engine="0",model_name="sim-tiny",replica="0"} 0`,
		`vllm:num_requests_running{engine="0",model_name="sim-tiny",replica="1"} 0`,
		`vllm:time_to_first_token_seconds_count{engine="0",model_name="sim-tiny",replica="1"} 1`,
	} {
		if !strings.Contains(m, line+"\n") {
			t.Errorf("the balancer's /metrics lacks %q", line)
		}
	}
	if n := strings.Count(m, "# TYPE vllm:request_success_total counter"); n != 1 {
		t.Errorf("the balancer's /metrics declares vllm:request_success_total %d times; want once, the replicas' series merged", n)
	}
}

// A replica that does not answer shows as a 502 with an OpenAI-style
// error body, as an L7 balancer answers; the other replica goes on
// serving.
func TestBalancerReplicaDown(t *testing.T) {
	d := startDeployment(t, 2, nil)
	if err := d.Replicas[1].Close(); err != nil {
		t.Fatal(err)
	}
	var statuses []int
	for range 4 {
		res := post(t, d.URL+"/v1/completions", map[string]any{"prompt": "a", "max_tokens": 2})
		statuses = append(statuses, res.status)
		if res.status == http.StatusBadGateway && !strings.Contains(string(res.body), `"type":"BadGatewayError"`) {
			t.Errorf("502 body %s", res.body)
		}
	}
	if diff := cmp.Diff([]int{200, 502, 200, 502}, statuses); diff != "" {
		t.Errorf("statuses with replica 1 down (-want +got):\n%s", diff)
	}
}
