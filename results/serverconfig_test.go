package results

import (
	"slices"
	"testing"
)

func TestConfigChanges(t *testing.T) {
	vllm := func(seqs string, more ...string) *ServerConfig {
		c := &ServerConfig{Engine: "vllm", Version: "0.11.0", MaxModelLen: 8192, Settings: map[string]string{"max_num_seqs": seqs}}
		for i := 0; i+1 < len(more); i += 2 {
			c.Settings[more[i]] = more[i+1]
		}
		return c
	}
	nothing := &ServerConfig{Reads: []ServerRead{{Path: "/version", Outcome: "http 404"}}}
	cases := []struct {
		name       string
		base, cand *ServerConfig
		want       []string
		note       string
	}{
		{"equal", vllm("256"), vllm("256"), nil, ""},
		{"one setting", vllm("256"), vllm("128"), []string{"max_num_seqs 128 (baseline 256)"}, ""},
		{"fields first, then settings by name", &ServerConfig{Engine: "vllm", Version: "0.11.0", Settings: map[string]string{"b": "1", "a": "1"}},
			&ServerConfig{Engine: "vllm", Version: "0.12.0", Settings: map[string]string{"b": "2", "c": "x"}},
			[]string{"version 0.12.0 (baseline 0.11.0)", "a not said (baseline 1)", "b 2 (baseline 1)", "c x (the baseline's server did not say)"}, ""},
		{"nothing exposed", nothing, nothing, nil, "the servers exposed no configuration"},
		{"one side exposed nothing", vllm("256"), nothing, nil, "the candidate's server exposed no configuration; the baseline's is not compared"},
		{"an older baseline", nil, vllm("256"), nil, "the baseline records no server configuration (an older result); the candidate's is not compared"},
		{"two older results", nil, nil, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, ch := range ConfigChanges(c.base, c.cand) {
				got = append(got, ch.String())
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("changes %q, want %q", got, c.want)
			}
			if n := ServerConfigNote(c.base, c.cand); n != c.note {
				t.Errorf("note %q, want %q", n, c.note)
			}
		})
	}
}

func TestRequiredMismatches(t *testing.T) {
	base := &ServerConfig{Model: "m", Settings: map[string]string{"max_num_seqs": "256", "block_size": "16"}}
	cand := &ServerConfig{Model: "m", Settings: map[string]string{"max_num_seqs": "128", "kv_cache_dtype": "fp8"}}
	got := RequiredMismatches(base, cand, []string{"model", "max_num_seqs", "block_size", "kv_cache_dtype", "tp_size"})
	want := []string{
		"max_num_seqs: 256 vs 128",
		"block_size: the candidate's server did not expose it (baseline 16)",
		"kv_cache_dtype: the baseline's server did not expose it (candidate fp8)",
		"tp_size: neither server exposed it",
	}
	if !slices.Equal(got, want) {
		t.Errorf("mismatches\n%q\nwant\n%q", got, want)
	}
	if m := RequiredMismatches(nil, nil, nil); m != nil {
		t.Errorf("nothing required: %v", m)
	}
}

// A merge keeps the server configuration its parts share, and none when
// they differ.
func TestCommonServerConfig(t *testing.T) {
	a := &ServerConfig{Engine: "vllm", Settings: map[string]string{"max_num_seqs": "256"}}
	b := &ServerConfig{Engine: "vllm", Settings: map[string]string{"max_num_seqs": "128"}}
	res := func(c *ServerConfig) *Result { return &Result{Extras: Extras{ServerConfig: c}} }
	cases := []struct {
		name  string
		parts []*Result
		want  *ServerConfig
	}{
		{"one", []*Result{res(a)}, a},
		{"alike", []*Result{res(a), res(&ServerConfig{Engine: "vllm", Settings: map[string]string{"max_num_seqs": "256"}})}, a},
		{"different", []*Result{res(a), res(b)}, nil},
		{"one recorded none", []*Result{res(a), res(nil)}, nil},
		{"none recorded", []*Result{res(nil), res(nil)}, nil},
	}
	for _, c := range cases {
		if got := commonServerConfig(c.parts); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
