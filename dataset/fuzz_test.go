package dataset

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// addSeeds seeds f with the fixtures matching pattern, leaving out those
// over 4 KiB: with them the fuzzer spends its time minimizing.
func addSeeds(f *testing.F, pattern string) {
	files, err := filepath.Glob(pattern)
	if err != nil {
		f.Fatal(err)
	}
	added := 0
	for i, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= 4<<10 {
			f.Add(data, int64(i), uint8(i))
			added++
		}
	}
	if added == 0 {
		f.Fatalf("no seed files %s", pattern)
	}
}

// FuzzLoadShareGPT: any input gives either a located *Error or requests
// that obey the rules.
func FuzzLoadShareGPT(f *testing.F) {
	addSeeds(f, "testdata/sharegpt/*.json")
	tok := wordTokenizer{bos: true}
	f.Fuzz(func(t *testing.T, data []byte, seed int64, n uint8) {
		cfg := DefaultShareGPT()
		cfg.Path = "fuzz.json"
		cfg.Seed = seed
		cfg.NumPrompts = int(n%16) + 1
		reqs, stats, err := sampleShareGPT(cfg, data, tok)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != cfg.Path {
				t.Fatalf("error %v is not a *Error naming the file", err)
			}
			return
		}
		if len(reqs) != cfg.NumPrompts {
			t.Fatalf("%d requests, want %d (oversampling on)", len(reqs), cfg.NumPrompts)
		}
		for i, r := range reqs {
			if r.Index < 0 || r.Index >= stats.Read {
				t.Errorf("request %d: index %d outside [0, %d)", i, r.Index, stats.Read)
			}
			if got := len(tok.Encode(r.Prompt, true)); got != r.PromptLen {
				t.Errorf("request %d: prompt has %d tokens, PromptLen %d", i, got, r.PromptLen)
			}
			if r.PromptLen < cfg.MinPromptTokens || r.PromptLen > cfg.MaxPromptTokens ||
				r.OutputLen < cfg.MinOutputTokens || r.PromptLen+r.OutputLen > cfg.MaxTotalTokens {
				t.Errorf("request %d breaks a rule: prompt_len %d, output_len %d", i, r.PromptLen, r.OutputLen)
			}
		}
	})
}

// FuzzLoadJSONL: any input gives either a located *Error or one request
// per sampled line.
func FuzzLoadJSONL(f *testing.F) {
	addSeeds(f, "testdata/jsonl/*.jsonl")
	tok := wordTokenizer{bos: true}
	f.Fuzz(func(t *testing.T, data []byte, seed int64, n uint8) {
		cfg := DefaultJSONL()
		cfg.Path = "fuzz.jsonl"
		cfg.Seed = seed
		cfg.NumPrompts = int(n % 8)
		cfg.OutputLenField = "max_tokens"
		reqs, stats, err := readJSONL(cfg, bytes.NewReader(data), tok)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != cfg.Path {
				t.Fatalf("error %v is not a *Error naming the file", err)
			}
			return
		}
		want := stats.Read
		if cfg.NumPrompts > 0 {
			want = min(want, cfg.NumPrompts)
		}
		if len(reqs) != want || want == 0 {
			t.Fatalf("%d requests from %d entries, want %d (> 0)", len(reqs), stats.Read, want)
		}
		lines := bytes.Count(data, []byte("\n")) + 1
		for i, r := range reqs {
			if r.Index < 0 || r.Index >= lines {
				t.Errorf("request %d: index %d outside [0, %d)", i, r.Index, lines)
			}
			if got := len(tok.Encode(r.Prompt, true)); got != r.PromptLen {
				t.Errorf("request %d: prompt has %d tokens, PromptLen %d", i, got, r.PromptLen)
			}
			if r.OutputLen < 1 {
				t.Errorf("request %d: output_len %d", i, r.OutputLen)
			}
		}
	})
}

// FuzzLoadTrace: any input, in any of the formats, gives either a located
// *Error or requests in time order with the recorded lengths.
func FuzzLoadTrace(f *testing.F) {
	for _, pattern := range []string{"testdata/trace/*.jsonl", "testdata/trace/*.csv"} {
		addSeeds(f, pattern)
	}
	tok := wordTokenizer{bos: true}
	f.Fuzz(func(t *testing.T, data []byte, seed int64, n uint8) {
		cfg := Trace{Path: "fuzz.trace", Format: TraceFormats[int(n)%len(TraceFormats)], Seed: seed, BlockSize: 16, MultiTurn: n&0x80 != 0}
		stats := Stats{Skipped: map[string]int{}}
		var recs []traceRecord
		var err error
		if cfg.Format == FormatMooncake {
			recs, err = parseMooncake(cfg.Path, bytes.NewReader(data), &stats)
		} else {
			recs, err = parseTraceCSV(cfg, bytes.NewReader(data), &stats)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != cfg.Path {
				t.Fatalf("error %v is not a *Error naming the file", err)
			}
			return
		}
		total := 0
		for _, r := range recs {
			total += r.in
		}
		if total > 1<<14 {
			return // building long prompts says nothing more about parsing
		}
		reqs, _, err := readTrace(cfg, bytes.NewReader(data), tok)
		if err != nil {
			var e *Error
			// An agent trace's sessions are checked once all rows are read.
			if (len(recs) == 0 || agentRows(recs)) && errors.As(err, &e) && e.File == cfg.Path {
				return
			}
			t.Fatalf("records parsed, then: %v", err)
		}
		for i, r := range reqs {
			if i > 0 && r.At < reqs[i-1].At {
				t.Errorf("request %d at %v, before its predecessor's %v", i, r.At, reqs[i-1].At)
			}
			if got := len(tok.Encode(r.Prompt, true)); got != r.PromptLen {
				t.Errorf("request %d: prompt has %d tokens, PromptLen %d", i, got, r.PromptLen)
			}
			if r.OutputLen < 1 {
				t.Errorf("request %d: output_len %d", i, r.OutputLen)
			}
		}
	})
}
