package sim

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestProfiles(t *testing.T) {
	if diff := cmp.Diff([]string{"a100-llama3-8b", "h100-llama3-8b", "tiny"}, Profiles()); diff != "" {
		t.Errorf("Profiles() (-want +got):\n%s", diff)
	}
	for _, name := range Profiles() {
		p, err := LookupProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != name {
			t.Errorf("LookupProfile(%q).Name = %q", name, p.Name)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("profile %s: %v", name, err)
		}
	}
	if _, err := LookupProfile("v100"); err == nil || !strings.Contains(err.Error(), "a100-llama3-8b, h100-llama3-8b, tiny") {
		t.Errorf("LookupProfile(v100) error %v, want one naming the valid profiles", err)
	}
}

func TestSet(t *testing.T) {
	tests := []struct {
		key, value string
		check      func(p Profile) bool
		wantErr    string
	}{
		{key: "max_num_seqs", value: "64", check: func(p Profile) bool { return p.MaxNumSeqs == 64 }},
		{key: "kv_cache_tokens", value: " 100000 ", check: func(p Profile) bool { return p.KVCacheTokens == 100000 }},
		{key: "weights_read_time", value: "4.5ms", check: func(p Profile) bool { return p.WeightsReadTime == 4500*time.Microsecond }},
		{key: "fault_http_500", value: "0.25", check: func(p Profile) bool { return p.FaultHTTP500 == 0.25 }},
		{key: "model", value: "my-model", check: func(p Profile) bool { return p.Model == "my-model" }},
		{key: "max_num_seq", value: "1", wantErr: `unknown simulator parameter "max_num_seq" (valid: model, max_model_len, max_num_seqs,`},
		{key: "max_num_seqs", value: "many", wantErr: `"many" is not an integer`},
		{key: "step_overhead", value: "5", wantErr: "is not a duration"},
		{key: "fault_drop", value: "1.5", wantErr: "fault_drop must be a probability in [0, 1], got 1.5"},
		{key: "max_num_seqs", value: "0", wantErr: "max_num_seqs must be positive"},
		{key: "max_num_seqs", value: "4096", wantErr: "max_num_batched_tokens (2048) must be at least max_num_seqs × tokens_per_event (4096)"},
		{key: "kv_cache_tokens", value: "100", wantErr: "must hold one max_model_len"},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			p, _ := LookupProfile("a100-llama3-8b")
			before := p
			err := p.Set(tt.key, tt.value)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Set error %v, want one containing %q", err, tt.wantErr)
				}
				if p != before {
					t.Errorf("a rejected Set changed the profile")
				}
				return
			}
			if err != nil || !tt.check(p) {
				t.Errorf("Set: error %v, profile %+v", err, p)
			}
		})
	}
	p, _ := LookupProfile("tiny")
	if err := p.Set("fault_http_500", "0.6"); err != nil {
		t.Fatal(err)
	}
	if err := p.Set("fault_drop", "0.6"); err == nil || !strings.Contains(err.Error(), "add up to 1.2") {
		t.Errorf("fault probabilities over 1: error %v", err)
	}
}

func TestGetSetRoundTrip(t *testing.T) {
	for _, name := range Profiles() {
		p, _ := LookupProfile(name)
		for _, key := range p.Keys() {
			if p.Help(key) == "" {
				t.Errorf("%s has no help", key)
			}
			v, err := p.Get(key)
			if err != nil {
				t.Fatal(err)
			}
			q := p
			if err := q.Set(key, v); err != nil || q != p {
				t.Errorf("%s: Set(%s, Get = %q): error %v, profile changed %v", name, key, v, err, q != p)
			}
		}
	}
	var p Profile
	if _, err := p.Get("nope"); err == nil {
		t.Error("Get(nope) succeeded")
	}
}

// TestDefaults: a parameter's value in each profile, as sim -h shows it.
func TestDefaults(t *testing.T) {
	for key, want := range map[string]string{
		"max_num_seqs": "a100-llama3-8b 256, h100-llama3-8b 256, tiny 16",
		"fault_drop":   "0 in each profile",
		"nope":         "",
	} {
		if got := Defaults(key); got != want {
			t.Errorf("Defaults(%q) = %q, want %q", key, got, want)
		}
	}
}

var update = flag.Bool("update", false, "rewrite golden files")

// paramTable renders the parameter table of docs/simulator.md.
func paramTable() string {
	var b strings.Builder
	b.WriteString("| key | meaning (unit) |")
	var names []string
	var ps []Profile
	for _, n := range Profiles() {
		p, _ := LookupProfile(n)
		names = append(names, n)
		ps = append(ps, p)
		b.WriteString(" " + n + " |")
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(names)) + "\n")
	for _, k := range ps[0].Keys() {
		b.WriteString("| `" + k + "` | " + ps[0].Help(k) + " |")
		for i := range ps {
			v, _ := ps[i].Get(k)
			b.WriteString(" " + v + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The parameter table in docs/simulator.md matches the profiles; -update rewrites it.
func TestDocsParameterTable(t *testing.T) {
	path := filepath.Join("..", "docs", "simulator.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- params:begin -->\n", "<!-- params:end -->"
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the %q ... %q markers", path, begin, end)
	}
	want := paramTable()
	got := string(doc[i+len(begin) : j])
	if *update {
		out := string(doc[:i+len(begin)]) + want + string(doc[j:])
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s parameter table is stale (run go test ./sim -run DocsParameterTable -update) (-want +got):\n%s", path, diff)
	}
}
