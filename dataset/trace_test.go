package dataset

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/tokenizer"
)

// traceRow is what a test expects of one request of a trace.
type traceRow struct {
	Line    int // from 1
	At      time.Duration
	In, Out int
}

func rows(reqs []Request) []traceRow {
	out := make([]traceRow, len(reqs))
	for i, r := range reqs {
		out[i] = traceRow{r.Index + 1, r.At, r.PromptLen, r.OutputLen}
	}
	return out
}

func ms(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

// TestTraceFormats loads each format's fixture: every request keeps its
// recorded time (from the first record), lengths and line; empty ones are
// left out and counted.
func TestTraceFormats(t *testing.T) {
	tests := []struct {
		file, format string
		cfg          func(*Trace)
		want         []traceRow
		skipped      map[string]int
	}{
		{"mooncake.jsonl", FormatMooncake, nil, []traceRow{
			{1, 0, 700, 12}, {2, 0, 900, 20}, {3, ms(250), 1200, 8}, {4, ms(1000), 300, 16}, {6, ms(1750), 1100, 10}, {8, ms(3000), 520, 4},
		}, map[string]int{skipNoOutput: 1}},
		{"azure.csv", FormatAzure, nil, []traceRow{
			{2, 0, 374, 44}, {3, ms(500), 96, 10}, {4, ms(500), 210, 16}, {5, ms(2250), 1024, 5}, {7, ms(4400), 128, 32},
		}, map[string]int{skipNoOutput: 1}},
		{"azure-2024.csv", FormatAzure, nil, []traceRow{
			{2, 0, 2162, 5}, {3, ms(510), 1100, 12}, {4, ms(2000), 300, 3},
		}, map[string]int{}},
		{"burstgpt.csv", FormatBurstGPT, nil, []traceRow{
			{2, 0, 472, 18}, {3, ms(500), 1087, 22}, {5, ms(2250), 300, 40}, {6, ms(4000), 64, 8},
		}, map[string]int{skipNoOutput: 1}},
		{"burstgpt.csv", FormatBurstGPT, func(c *Trace) { c.Model = "ChatGPT" }, []traceRow{
			{2, 0, 472, 18}, {5, ms(2250), 300, 40},
		}, map[string]int{skipNoOutput: 1, skipOtherModel: 2}},
		{"burstgpt.csv", FormatBurstGPT, func(c *Trace) { c.LogType = "API log" }, []traceRow{
			{5, 0, 300, 40}, {6, ms(1750), 64, 8},
		}, map[string]int{skipOtherLogTyp: 3}}, // filters come first
		// A slice: times count from its start.
		{"mooncake.jsonl", FormatMooncake, func(c *Trace) { c.Start, c.Window = ms(250), ms(1500) }, []traceRow{
			{3, 0, 1200, 8}, {4, ms(750), 300, 16},
		}, map[string]int{skipNoOutput: 1, skipOutside: 4}},
		{"azure.csv", FormatAzure, func(c *Trace) { c.Start = ms(2250) }, []traceRow{
			{5, 0, 1024, 5}, {7, ms(2150), 128, 32},
		}, map[string]int{skipNoOutput: 1, skipOutside: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+strings.Join(strings.Fields(tt.format), ""), func(t *testing.T) {
			cfg := Trace{Path: "testdata/trace/" + tt.file, Format: tt.format, Seed: 1}
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			tok := wordTokenizer{bos: true}
			ds, err := Load(Spec{Name: "t", Trace: &cfg}, tok)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, rows(ds.Requests)); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.skipped, ds.Stats.Skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			for _, r := range ds.Requests {
				if got := len(tok.Encode(r.Prompt, true)); got != r.PromptLen {
					t.Errorf("line %d: prompt has %d tokens, want the recorded %d", r.Index+1, got, r.PromptLen)
				}
			}
			if last := ds.Requests[len(ds.Requests)-1].At; ds.Stats.Span != last {
				t.Errorf("span %v, want %v", ds.Stats.Span, last)
			}
		})
	}
}

// TestTraceExactLengths: with a tokenizer that merges, prompts still
// re-encode to the recorded lengths.
func TestTraceExactLengths(t *testing.T) {
	cfg := Trace{Path: "testdata/trace/azure.csv", Format: FormatAzure}
	ds, err := Load(Spec{Name: "t", Trace: &cfg}, pairTokenizer{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ds.Requests {
		if got := len(pairTokenizer{}.Encode(r.Prompt, true)); got != r.PromptLen {
			t.Errorf("line %d: %d tokens, want %d", r.Index+1, got, r.PromptLen)
		}
	}
}

// commonWords is the number of leading words a and b share.
func commonWords(a, b string) int {
	wa, wb := strings.Fields(a), strings.Fields(b)
	n := 0
	for n < len(wa) && n < len(wb) && wa[n] == wb[n] {
		n++
	}
	return n
}

// TestMooncakeSharedBlocks: requests with the same hash id at block i have
// the same text there, and differ from the first block they do not share.
func TestMooncakeSharedBlocks(t *testing.T) {
	cfg := Trace{Path: "testdata/trace/mooncake.jsonl", Format: FormatMooncake, Seed: 3}
	// The approximation's words round-trip one to one: word k is token k.
	ds, err := Load(Spec{Name: "t", Trace: &cfg}, tokenizer.Approximate())
	if err != nil {
		t.Fatal(err)
	}
	byLine := map[int]string{}
	for _, r := range ds.Requests {
		byLine[r.Index+1] = r.Prompt
	}
	const b = MooncakeBlockSize
	tests := []struct {
		a, b int // lines
		want int // leading tokens shared
	}{
		{1, 2, b},   // [0 1] and [0 2]: block 0
		{2, 3, 900}, // [0 2] (900 tokens) is the start of [0 2 3]
		{1, 6, 700}, // [0 1] (700 tokens) is the start of [0 1 5]
		{3, 6, b},   // [0 2 3] and [0 1 5]: block 0
		{1, 4, 0},   // [0 1] and [4]: nothing
		{4, 8, 0},   // [4] and no hash ids: nothing
		{6, 8, 0},   // no hash ids: its own tokens
	}
	for _, tt := range tests {
		if got := commonWords(byLine[tt.a], byLine[tt.b]); got != tt.want {
			t.Errorf("lines %d and %d share %d leading tokens, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestTracePrefixGroups: a prefix block on a trace without hash ids gives
// each prompt one of the group prefixes, the groups equally shared.
func TestTracePrefixGroups(t *testing.T) {
	cfg := Trace{Path: "testdata/trace/azure.csv", Format: FormatAzure, Prefix: &Prefix{Len: 50, Groups: 2}}
	ds, err := Load(Spec{Name: "t", Trace: &cfg}, tokenizer.Approximate())
	if err != nil {
		t.Fatal(err)
	}
	checkGroups(t, ds.Requests, 50, 2)
}

// checkGroups checks that the prompts fall into groups sharing exactly
// their first n words (no more: the rest is drawn for each prompt), the
// groups' sizes differing by at most one.
func checkGroups(t *testing.T, reqs []Request, n, groups int) {
	t.Helper()
	byPrefix := map[string]int{}
	for _, r := range reqs {
		w := strings.Fields(r.Prompt)
		if len(w) < n {
			t.Fatalf("request %d has %d words, fewer than the %d of the prefix", r.Index, len(w), n)
		}
		byPrefix[strings.Join(w[:n], " ")]++
	}
	if len(byPrefix) != groups {
		t.Fatalf("%d distinct prefixes, want %d", len(byPrefix), groups)
	}
	lo, hi := len(reqs), 0
	for _, c := range byPrefix {
		lo, hi = min(lo, c), max(hi, c)
	}
	if hi-lo > 1 {
		t.Errorf("group sizes from %d to %d: want equal shares", lo, hi)
	}
	for i := range reqs {
		for j := i + 1; j < len(reqs); j++ {
			if c := commonWords(reqs[i].Prompt, reqs[j].Prompt); c > n && c < min(len(strings.Fields(reqs[i].Prompt)), len(strings.Fields(reqs[j].Prompt))) {
				t.Errorf("requests %d and %d share %d leading words, beyond the %d of the prefix", i, j, c, n)
			}
		}
	}
}

func TestTraceErrors(t *testing.T) {
	tests := []struct {
		file, format string
		cfg          func(*Trace)
		want         string
		line         int
	}{
		{"bad-azure-time.csv", FormatAzure, nil, `TIMESTAMP "yesterday" is not a date and time`, 3},
		{"bad-azure-quote.csv", FormatAzure, nil, `extraneous or missing " in quoted-field`, 3},
		{"bad-burstgpt-count.csv", FormatBurstGPT, nil, `Response tokens "many" is not a token count`, 2},
		{"burstgpt-no-request-column.csv", FormatBurstGPT, nil, `no "Request tokens" column`, 1},
		{"burstgpt.csv", FormatAzure, nil, `no "TIMESTAMP" column`, 1},
		{"bad-mooncake-hash.jsonl", FormatMooncake, nil, `hash_ids[1] is -2, not a block id`, 2},
		{"bad-mooncake-timestamp.jsonl", FormatMooncake, nil, `"timestamp" is "soon", not a number of milliseconds`, 2},
		{"bad-mooncake-json.jsonl", FormatMooncake, nil, `not valid JSON`, 1},
		{"azure.csv", FormatAzure, func(c *Trace) { c.Start = time.Hour }, `no request in the slice from 1h0m0s`, 0},
		{"mooncake.jsonl", FormatMooncake, func(c *Trace) { c.Prefix = &Prefix{Len: 10, Groups: 2} }, `a prefix block is for traces without them`, 0},
		{"azure.csv", FormatAzure, func(c *Trace) { c.Prefix = &Prefix{Len: 10, Groups: 9} }, `5 prompts cannot fill 9 prefix groups`, 0},
		{"azure.csv", "splunk", nil, `format "splunk"`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.format, func(t *testing.T) {
			cfg := Trace{Path: "testdata/trace/" + tt.file, Format: tt.format}
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			_, err := Load(Spec{Name: "t", Trace: &cfg}, wordTokenizer{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one with %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), cfg.Path) {
				t.Errorf("error %q does not name the file", err)
			}
			var e *Error
			if tt.line > 0 && (!errors.As(err, &e) || e.Line != tt.line) {
				t.Errorf("error %v: want a *Error at line %d", err, tt.line)
			}
		})
	}
}
