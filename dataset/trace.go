package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmload/llmload/tokenizer"
	"github.com/tidwall/gjson"
)

// Trace formats.
const (
	// FormatMooncake is Mooncake's JSONL trace (kvcache-ai/Mooncake,
	// FAST'25): one object per line with "timestamp" (ms from the start),
	// "input_length", "output_length" and "hash_ids", the ids of the
	// prompt's 512-token blocks (equal ids are equal blocks).
	FormatMooncake = "mooncake"
	// FormatAzure is the Azure LLM inference trace CSV
	// (Azure/AzurePublicDataset): TIMESTAMP (a date and time),
	// ContextTokens, GeneratedTokens.
	FormatAzure = "azure"
	// FormatBurstGPT is BurstGPT's CSV (HPMLL/BurstGPT): Timestamp
	// (seconds), Model, Request tokens, Response tokens, Total tokens, Log
	// Type. A record with 0 response tokens is a failed request.
	FormatBurstGPT = "burstgpt"
)

// TraceFormats lists the formats Trace.Format accepts.
var TraceFormats = []string{FormatMooncake, FormatAzure, FormatBurstGPT}

// MooncakeBlockSize is the tokens of one Mooncake hash id.
const MooncakeBlockSize = 512

// Trace reads a timestamped request log: when each request arrived and
// how many tokens it had in and out. Prompts are built to the recorded
// lengths out of random tokens (exact with a real tokenizer, as the random
// source's); a Mooncake record's hash_ids become shared blocks, so that
// requests sharing a hash id share that block of text.
type Trace struct {
	// Path is the trace file.
	Path string
	// Format is FormatMooncake, FormatAzure or FormatBurstGPT.
	Format string
	// Seed seeds the prompts' random tokens.
	Seed int64
	// Start and Window cut a slice of the trace by recorded time, counted
	// from its first record: the records at Start <= t < Start+Window
	// (Window 0: to the end). Only the slice's prompts are built.
	Start, Window time.Duration
	// BlockSize is the tokens of one hash id (0: MooncakeBlockSize).
	BlockSize int
	// Model and LogType keep only the BurstGPT records of that model
	// ("ChatGPT", "GPT-4") or log type ("Conversation log", "API log");
	// "" keeps all.
	Model, LogType string
	// Prefix gives the prompts of a trace without hash ids shared
	// prefixes (the first Prefix.Len tokens of each prompt, or all of a
	// shorter one).
	Prefix *Prefix
	// MultiTurn replays a Mooncake trace's sessions as sessions: the rows
	// sharing a session_id, each holding the conversation so far, as
	// AIPerf's mooncake_trace writes agent traffic (agenttrace.go).
	// MaxTurns keeps at most that many turns of a session (0: all).
	MultiTurn bool
	MaxTurns  int
}

// Trace skip rules, as counted in Stats.Skipped.
const (
	skipNoOutput    = "no_output"     // 0 output tokens (BurstGPT: a failed request)
	skipNoInput     = "no_input"      // 0 input tokens
	skipOutside     = "outside_slice" // before start or after start+window
	skipOtherModel  = "other_model"
	skipOtherLogTyp = "other_log_type"
)

// traceRecord is one request of a trace.
type traceRecord struct {
	line    int           // from 1
	at      time.Duration // from the trace's start (absolute for Azure until normalized)
	in, out int
	hashIDs []int
	// An agent trace's row (agenttrace.go): its session, its messages and
	// tools, and its delay after the session's previous request ended;
	// hasAt says it had a timestamp.
	session  string
	msgs     []Message
	tools    *Tools
	delay    time.Duration
	hasAt    bool
	hasDelay bool
	fanOut   gjson.Result // its answer's sub-agents (read with the tokenizer)
}

func loadTrace(cfg Trace, tok tokenizer.Tokenizer) ([]Request, Stats, error) {
	f, err := os.Open(cfg.Path)
	if err != nil {
		return nil, Stats{}, err
	}
	defer f.Close()
	return readTrace(cfg, f, tok)
}

func readTrace(cfg Trace, r io.Reader, tok tokenizer.Tokenizer) ([]Request, Stats, error) {
	stats := Stats{Source: "trace", Path: cfg.Path, Skipped: map[string]int{}}
	if cfg.BlockSize == 0 {
		cfg.BlockSize = MooncakeBlockSize
	}
	switch {
	case !slices.Contains(TraceFormats, cfg.Format):
		return nil, stats, fmt.Errorf("trace %s: format %q: want %s", cfg.Path, cfg.Format, strings.Join(TraceFormats, ", "))
	case cfg.Start < 0 || cfg.Window < 0:
		return nil, stats, fmt.Errorf("trace %s: start and window must not be negative", cfg.Path)
	case cfg.BlockSize < 1:
		return nil, stats, fmt.Errorf("trace %s: block size must be at least 1, got %d", cfg.Path, cfg.BlockSize)
	case cfg.Prefix != nil && cfg.Format == FormatMooncake:
		return nil, stats, fmt.Errorf("trace %s: a Mooncake trace's hash_ids say which prompts share blocks; a prefix block is for traces without them", cfg.Path)
	}
	var (
		recs []traceRecord
		err  error
	)
	switch cfg.Format {
	case FormatMooncake:
		recs, err = parseMooncake(cfg.Path, r, &stats)
	default:
		recs, err = parseTraceCSV(cfg, r, &stats)
	}
	if err != nil {
		return nil, stats, err
	}
	if agentRows(recs) {
		return agentTrace(cfg, recs, tok, stats)
	}
	if len(recs) == 0 {
		return nil, stats, fileError(cfg.Path, "no requests: %d records read, skipped %s", stats.Read, formatSkipped(stats.Skipped))
	}
	// Traces are in time order; a file that is not is sorted (stably, so
	// simultaneous requests keep their order).
	slices.SortStableFunc(recs, func(a, b traceRecord) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	zero := recs[0].at
	from, to := cfg.Start, time.Duration(math.MaxInt64)
	if cfg.Window > 0 {
		to = cfg.Start + cfg.Window
	}
	var slice []traceRecord
	for _, rec := range recs {
		rec.at -= zero
		if rec.at < from || rec.at >= to {
			stats.Skipped[skipOutside]++
			continue
		}
		rec.at -= from
		slice = append(slice, rec)
	}
	if len(slice) == 0 {
		return nil, stats, fileError(cfg.Path, "no request in the slice from %v to %v of the trace's %v", from, fmtEnd(to), recs[len(recs)-1].at-zero)
	}
	stats.Span = slice[len(slice)-1].at - slice[0].at
	reqs, err := traceRequests(cfg, slice, tok, &stats)
	if err != nil {
		return nil, stats, err
	}
	return reqs, stats, nil
}

func fmtEnd(d time.Duration) string {
	if d == time.Duration(math.MaxInt64) {
		return "the end"
	}
	return d.String()
}

// traceRequests builds the slice's prompts. Each hash id's block is drawn
// once, so equal ids are equal text; tokens beyond the hash ids (or every
// token, without them) are drawn for the request alone.
func traceRequests(cfg Trace, recs []traceRecord, tok tokenizer.Tokenizer, stats *Stats) ([]Request, error) {
	m, err := newPromptMaker(tok, cfg.Seed)
	if err != nil {
		return nil, err
	}
	blocks := map[int][]int{}
	var groups []int
	var shared [][]int
	if p := cfg.Prefix; p != nil {
		if err := p.validate(len(recs)); err != nil {
			return nil, fmt.Errorf("trace %s: %w", cfg.Path, err)
		}
		shared = p.prefixes(m)
		groups = p.assign(len(recs), m.rng)
	}
	reqs := make([]Request, 0, len(recs))
	for i, rec := range recs {
		// The recorded length counts the special tokens a server adds; a
		// prompt has at least one token of its own.
		target := max(1, rec.in-m.numSpecial)
		seq := make([]int, 0, target)
		for _, h := range rec.hashIDs {
			if len(seq) >= target {
				break
			}
			b, ok := blocks[h]
			if !ok {
				b = m.randomIDs(cfg.BlockSize)
				blocks[h] = b
			}
			seq = append(seq, b[:min(len(b), target-len(seq))]...)
		}
		if groups != nil {
			p := shared[groups[i]]
			seq = append(seq, p[:min(len(p), target)]...)
		}
		for len(seq) < target {
			seq = append(seq, m.randomID())
		}
		prompt, err := m.build(seq, target)
		if err != nil {
			return nil, fmt.Errorf("trace %s: line %d: %w", cfg.Path, rec.line, err)
		}
		reqs = append(reqs, Request{
			Index: rec.line - 1, Prompt: prompt,
			PromptLen: target + m.numSpecial, OutputLen: rec.out, At: rec.at,
		})
		stats.Examined++
	}
	return reqs, nil
}

// parseMooncake reads Mooncake's JSONL: blank lines are skipped, every
// other line is one request.
func parseMooncake(path string, r io.Reader, stats *Stats) ([]traceRecord, error) {
	var recs []traceRecord
	br := bufio.NewReaderSize(r, 1<<16)
	for line := 1; ; line++ {
		text, readErr := br.ReadBytes('\n')
		if readErr != nil && readErr != io.EOF {
			return nil, fmt.Errorf("%s: %w", path, readErr)
		}
		if len(bytes.TrimSpace(text)) > 0 {
			stats.Read++
			rec, skip, err := parseMooncakeLine(path, bytes.TrimRight(text, "\r\n"), line)
			if err != nil {
				return nil, err
			}
			if skip != "" {
				stats.Skipped[skip]++
			} else {
				recs = append(recs, rec)
			}
		}
		if readErr == io.EOF {
			return recs, nil
		}
	}
}

func parseMooncakeLine(path string, text []byte, line int) (traceRecord, string, error) {
	src := string(text)
	if !gjson.Valid(src) {
		if pos, msg, ok := findSyntaxError(text); ok {
			return traceRecord{}, "", lineError(path, line, "not valid JSON at column %d: %s", pos+1, msg)
		}
		return traceRecord{}, "", lineError(path, line, "not valid JSON")
	}
	obj := gjson.Parse(src)
	if !obj.IsObject() {
		return traceRecord{}, "", lineError(path, line, "line is %s, not a JSON object", kind(obj))
	}
	rec := traceRecord{line: line}
	agent, err := parseAgentFields(obj, &rec)
	if err != nil {
		return rec, "", lineError(path, line, "%v", err)
	}
	ts := field(obj, "timestamp")
	if rec.hasAt = present(ts); rec.hasAt || !rec.hasDelay {
		if ts.Type != gjson.Number || !(ts.Num >= 0) || ts.Num > maxTraceMs {
			return rec, "", lineError(path, line, "\"timestamp\" is %s, not a number of milliseconds >= 0", describe(ts))
		}
		rec.at = time.Duration(ts.Num * float64(time.Millisecond))
	}
	if !agent || field(obj, "input_length").Exists() {
		if rec.in, err = count(obj, "input_length"); err != nil {
			return rec, "", lineError(path, line, "%v", err)
		}
	}
	if !agent || field(obj, "output_length").Exists() {
		if rec.out, err = count(obj, "output_length"); err != nil {
			return rec, "", lineError(path, line, "%v", err)
		}
	}
	if agent {
		return rec, "", nil // its messages are its prompt
	}
	if h := field(obj, "hash_ids"); h.Exists() {
		if !h.IsArray() {
			return rec, "", lineError(path, line, "\"hash_ids\" is %s, not an array of block ids", kind(h))
		}
		var bad error
		h.ForEach(func(_, id gjson.Result) bool {
			if id.Type != gjson.Number || id.Num != math.Trunc(id.Num) || id.Num < 0 || id.Num > math.MaxInt32 {
				bad = fmt.Errorf("hash_ids[%d] is %s, not a block id (an integer >= 0)", len(rec.hashIDs), describe(id))
				return false
			}
			rec.hashIDs = append(rec.hashIDs, int(id.Num))
			return true
		})
		if bad != nil {
			return rec, "", lineError(path, line, "%v", bad)
		}
	}
	return rec, skipEmpty(rec), nil
}

// maxTraceMs bounds a timestamp: a year of milliseconds.
const maxTraceMs = 365 * 24 * 3600 * 1000

// maxTraceTokens bounds a recorded length: no model reads or writes more
// in one request, and a typo should not build a prompt of a billion tokens.
const maxTraceTokens = 1 << 24

// count reads a token count: an integer >= 0.
func count(obj gjson.Result, name string) (int, error) {
	v := field(obj, name)
	if v.Type != gjson.Number || v.Num != math.Trunc(v.Num) || v.Num < 0 || v.Num > maxTraceTokens {
		return 0, fmt.Errorf("%q is %s, not a token count (an integer >= 0)", name, describe(v))
	}
	return int(v.Num), nil
}

// describe shows a JSON value in a message: its text, or "missing".
func describe(v gjson.Result) string {
	if !v.Exists() {
		return "missing"
	}
	return clipRaw(v.Raw)
}

func clipRaw(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// skipEmpty names the rule that leaves out a record without output or
// input tokens.
func skipEmpty(rec traceRecord) string {
	switch {
	case rec.out == 0:
		return skipNoOutput
	case rec.in == 0:
		return skipNoInput
	}
	return ""
}

// traceColumns are the columns a CSV format needs.
var traceColumns = map[string][]string{
	FormatAzure:    {"TIMESTAMP", "ContextTokens", "GeneratedTokens"},
	FormatBurstGPT: {"Timestamp", "Request tokens", "Response tokens"},
}

// parseTraceCSV reads the Azure or BurstGPT CSV: a header row naming the
// columns (in any order, others ignored), then one request per row.
func parseTraceCSV(cfg Trace, r io.Reader, stats *Stats) ([]traceRecord, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fileError(cfg.Path, "file is empty: want a header row (%s)", strings.Join(traceColumns[cfg.Format], ","))
	}
	if err != nil {
		return nil, csvError(cfg.Path, err)
	}
	col := map[string]int{}
	for i, name := range header {
		name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
		if _, dup := col[name]; !dup {
			col[name] = i
		}
	}
	need := traceColumns[cfg.Format]
	if cfg.Format == FormatBurstGPT {
		if cfg.Model != "" {
			need = append(need, "Model")
		}
		if cfg.LogType != "" {
			need = append(need, "Log Type")
		}
	}
	for _, name := range need {
		if _, ok := col[name]; !ok {
			return nil, lineError(cfg.Path, 1, "no %q column: a %s trace's header names %s", name, cfg.Format, strings.Join(need, ", "))
		}
	}
	var recs []traceRecord
	for {
		row, err := cr.Read()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return nil, csvError(cfg.Path, err)
		}
		line, _ := cr.FieldPos(0)
		stats.Read++
		rec, skip, err := parseTraceRow(cfg, col, row, line)
		if err != nil {
			return nil, err
		}
		if skip != "" {
			stats.Skipped[skip]++
			continue
		}
		recs = append(recs, rec)
	}
}

func parseTraceRow(cfg Trace, col map[string]int, row []string, line int) (traceRecord, string, error) {
	rec := traceRecord{line: line}
	get := func(name string) string { return strings.TrimSpace(row[col[name]]) }
	tokens := func(name string) (int, error) {
		s := get(name)
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || n != math.Trunc(n) || n < 0 || n > maxTraceTokens {
			return 0, lineError(cfg.Path, line, "%s %q is not a token count (an integer >= 0)", name, s)
		}
		return int(n), nil
	}
	var err error
	switch cfg.Format {
	case FormatAzure:
		s := get("TIMESTAMP")
		t, ok := parseAzureTime(s)
		if !ok {
			return rec, "", lineError(cfg.Path, line, "TIMESTAMP %q is not a date and time such as \"2023-11-16 18:15:46.6805900\"", s)
		}
		// Absolute for now: readTrace counts from the first record.
		rec.at = time.Duration(t.Sub(azureEpoch))
		if rec.in, err = tokens("ContextTokens"); err != nil {
			return rec, "", err
		}
		if rec.out, err = tokens("GeneratedTokens"); err != nil {
			return rec, "", err
		}
	case FormatBurstGPT:
		s := get("Timestamp")
		sec, perr := strconv.ParseFloat(s, 64)
		if perr != nil || !(sec >= 0) || sec > maxTraceMs/1000 {
			return rec, "", lineError(cfg.Path, line, "Timestamp %q is not a number of seconds >= 0", s)
		}
		rec.at = time.Duration(sec * float64(time.Second))
		if rec.in, err = tokens("Request tokens"); err != nil {
			return rec, "", err
		}
		if rec.out, err = tokens("Response tokens"); err != nil {
			return rec, "", err
		}
		if cfg.Model != "" && get("Model") != cfg.Model {
			return rec, skipOtherModel, nil
		}
		if cfg.LogType != "" && get("Log Type") != cfg.LogType {
			return rec, skipOtherLogTyp, nil
		}
	}
	return rec, skipEmpty(rec), nil
}

// azureEpoch is a reference for Azure timestamps: durations from it fit
// in an int64 for dates from 1970 to 2262.
var azureEpoch = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)

// azureLayouts are the forms of the Azure traces' TIMESTAMP: the 2023
// trace's "2023-11-16 18:15:46.6805900" and the 2024 trace's, which adds a
// zone ("+00:00"). Go reads any number of fractional digits after the
// seconds.
var azureLayouts = []string{"2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05", "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05"}

func parseAzureTime(s string) (time.Time, bool) {
	for _, l := range azureLayouts {
		if t, err := time.Parse(l, s); err == nil && t.Year() >= 1970 && t.Year() < 2262 {
			return t, true
		}
	}
	return time.Time{}, false
}

// csvError locates a CSV syntax error at its line.
func csvError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return lineError(path, max(pe.Line, 1), "%v", pe.Err)
	}
	return fmt.Errorf("%s: %w", path, err)
}
