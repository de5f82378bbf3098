package executor

import (
	"context"
	"errors"
	"fmt"
	"math"
	rand2 "math/rand/v2"
	"time"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/tokenizer"
)

// Target is the server under test.
type Target struct {
	// BaseURL is the server's root, e.g. "http://127.0.0.1:8000" (the
	// API's path, /v1/chat/completions say, is appended).
	BaseURL string
	// API is a name of the API table (internal/apis): APICompletions
	// ("openai", the default when empty), APIChat ("openai-chat"),
	// APIResponses ("openai-responses"), APIEmbeddings
	// ("openai-embeddings") or APIMessages ("anthropic-messages"): see
	// APIs.
	API   string
	Model string
	// ModelAliases are other names the server gives the model asked for,
	// read from its /v1/models before the run (llama.cpp names it by its
	// file, whatever was asked; vLLM answers with its first served name):
	// an answer under one of them is not "another model".
	ModelAliases []string
	// APIKey, when set, is sent as "Authorization: Bearer <key>", or in
	// the API's own header (x-api-key for APIMessages: KeyHeader). It never
	// appears in error messages or results (nor does any value Scrubber
	// knows).
	APIKey string
	// Headers are added to every request (and may override the defaults).
	Headers map[string]string
	// SensitiveHeaders names headers whose values are credentials, beyond
	// those secret.SensitiveHeader knows (Authorization, Cookie, X-Api-Key,
	// any name with key, token, secret or auth in it): their values are
	// scrubbed from every message.
	SensitiveHeaders []string
	// Secrets are more values to scrub from every message (sensitive
	// variables' values).
	Secrets []string
	// Timeout bounds each request from t0 to the end of its stream (0 =
	// none); it also bounds the drain at the end of a run, counted from when
	// the last request was sent (not the time a request waits for an open
	// loop's concurrency slot).
	Timeout time.Duration
	// StallTimeout fails a request (metrics.ErrStall) when its stream goes
	// this long without a byte (0 = none).
	StallTimeout time.Duration
	// IgnoreEOS sends "ignore_eos": true with every request.
	IgnoreEOS bool
	// ExtraBody is merged into every request body, over the defaults.
	ExtraBody map[string]any
	// HTTP2 attempts HTTP/2: negotiated over TLS, or with prior knowledge
	// (h2c) for an http:// BaseURL.
	HTTP2 bool
	// CAFile is a PEM file of CA certificates to trust instead of the
	// system's.
	CAFile             string
	InsecureSkipVerify bool
	// NewConnectionPerRequest opens a fresh connection for every request
	// and closes it after (keep-alive off), as vLLM's benchmark client
	// does: every TTFT then includes a connect (and a TLS handshake).
	NewConnectionPerRequest bool
	// PrewarmConnections opens this many connections before warmup and
	// the measured phase (concurrent HEAD requests to BaseURL held until
	// each has its own connection), so that the first requests do not
	// queue behind a storm of connects; they stay in the idle pool.
	PrewarmConnections int
	// FollowRedirects is the redirect policy of every request to the
	// target: "" or "never" follows none (a 3xx is a failure of kind
	// redirect), "same-host" follows the target's own scheme, host and
	// port. The credential and headers never go to another host.
	FollowRedirects string
	// NoTraceContext sends no W3C traceparent header. By default every
	// load request carries one (version 00, a random trace id and parent
	// id, sampled), recorded as metrics.Request.Traceparent, so that a
	// slow request can be found in the engine's own traces. A traceparent
	// among Headers is sent as set, on every request, and not recorded.
	NoTraceContext bool
	// PromptCache is how the requests use the engine's prompt cache: ""
	// (the engine's default), PromptCacheIsolate or PromptCacheOff.
	// CachePromptFlag says the engine turns its cache off per request by
	// cache_prompt = false and has no cache_salt (llama.cpp). cacheSalt is
	// the run's salt: Plan.CacheSalt, or drawn by Run.
	PromptCache     string
	CachePromptFlag bool
	cacheSalt       string
}

// OpenLoop sends requests at scheduled arrival times, whatever the server
// does: the dispatcher never waits for a response.
type OpenLoop struct {
	// Rate is the mean arrival rate in requests per second; math.Inf(1)
	// sends every request at t=0.
	Rate float64
	// Arrival is ArrivalPoisson (the default when empty), ArrivalGamma,
	// ArrivalConstant or ArrivalReplay. A replay ignores Rate (it may hold
	// the replay's mean rate, for reports) and sends measured request k
	// (place Warmup+k) at its recorded time, counted from the first
	// measured one's, divided by Speed.
	Arrival string
	// Speed is a replay's speed-up: 2 sends a trace twice as fast.
	Speed float64
	// Burstiness is the gamma shape for ArrivalGamma (1 = Poisson).
	Burstiness float64
	// MaxConcurrency caps requests in flight (0 = no cap); arrivals beyond
	// it wait for a slot as long as it takes, and the wait shows as queue
	// time.
	MaxConcurrency int
}

// ClosedLoop runs virtual users: each sends a request, reads the whole
// stream, waits a think time and repeats.
type ClosedLoop struct {
	Stages []Stage
	// Think time is uniform in [ThinkMin, ThinkMax] (fixed when equal).
	ThinkMin, ThinkMax time.Duration
	// Backoff is how long a user waits after a failed request before its
	// next one, so that a failing server is not flooded (the zero value:
	// no wait).
	Backoff Backoff
}

// Backoff is an exponential backoff: a user's first failure in a row
// waits about Min, each further one twice as long, up to Max; a success
// resets it. Each wait is drawn in [d/2, d] (the user's seeded randomness)
// so that users that failed together do not retry together. It replaces
// the think time when longer.
type Backoff struct {
	Min, Max time.Duration
}

// wait is the backoff after fails failures in a row (fails >= 1), before
// jitter.
func (b Backoff) wait(fails int) time.Duration {
	if b.Min <= 0 {
		return 0
	}
	d := b.Min
	for i := 1; i < fails && d < b.Max; i++ {
		d *= 2
	}
	return min(d, max(b.Max, b.Min))
}

// AbortOn stops a run early once its error rate is hopeless, as k6's
// abortOnFail does: when at least MinRequests measured requests have
// finished (completed or failed) and more than ErrorRate of them failed,
// dispatch stops, requests in flight are canceled and Outcome.Aborted says
// why.
type AbortOn struct {
	ErrorRate   float64
	MinRequests int
}

// Stage is one period of a closed loop with its own user count.
type Stage struct {
	Users int
	// Duration is the stage's length, ramp included; 0 (last stage only)
	// runs until another limit ends the run.
	Duration time.Duration
	// Ramp moves the user count linearly from the previous stage's (0
	// before the first stage) to Users over the start of the stage.
	Ramp time.Duration
}

// History says what a multi-turn session sends as earlier assistant turns.
const (
	// HistoryGenerated sends the replies the server generated (the
	// default): what a chat product does. A failed turn ends its session.
	HistoryGenerated = "generated"
	// HistoryRecorded sends the dataset's recorded replies: every turn's
	// prompt is known beforehand, and runs are reproducible.
	HistoryRecorded = "recorded"
)

// Sessions says how multi-turn requests (dataset.Request.Turns) run: each
// turn is sent once its predecessor has ended and a think time has passed,
// with the whole history so far. A session is one request of the plan: a
// closed-loop user runs one session after another, an open loop starts one
// at each arrival, and MaxRequests counts sessions.
type Sessions struct {
	// History is HistoryGenerated (the default when empty) or
	// HistoryRecorded.
	History string
	// Think is the pause between a turn's end and the next turn.
	Think ThinkTime
	// MaxToolRounds: with generated history, an answer that called tools
	// is followed, at once, by a request carrying each call's result (a
	// tool message of ToolResultTokens synthetic words), up to this many
	// times a turn, before the session's next user turn (0: never).
	MaxToolRounds, ToolResultTokens int
	// FanOut, when set, makes one turn of every session a fan-out step.
	FanOut *FanOut
}

// The think-time distributions of ThinkTime.Dist.
const (
	ThinkUniform     = "uniform"     // uniform in [Min, Max]; fixed when equal (the default)
	ThinkExponential = "exponential" // Min plus an exponential of mean Mean, capped at Max when Max > 0
	ThinkRecorded    = "recorded"    // each turn's recorded think time or time (dataset.Turn), at a replay's speed
)

// ThinkTime is how long a session pauses before its next turn.
type ThinkTime struct {
	Dist           string // ThinkUniform when empty
	Min, Max, Mean time.Duration
}

// draw returns the pause before turn.
func (t ThinkTime) draw(rng *rand2.Rand, turn dataset.Turn) time.Duration {
	switch t.Dist {
	case ThinkRecorded:
		return turn.Think
	case ThinkExponential:
		d := t.Min + time.Duration(rng.ExpFloat64()*float64(t.Mean))
		if t.Max > 0 && d > t.Max {
			d = t.Max
		}
		return d
	}
	d := t.Min
	if t.Max > t.Min {
		d += time.Duration(rng.Int64N(int64(t.Max - t.Min + 1)))
	}
	return d
}

// FanOut makes one turn of every session a fan-out step: after its answer
// (and tool round trips) Width sub-agents are sent at once, each a user
// message of Prompt ("(sub-task k of n)" added), and their replies are
// joined into the next turn's first user message; after a session's last
// turn the join is a request of its own. With Shared each sub-agent sees
// the session's history; without, it sees the session's system messages
// and Prompt with the step's answer appended. It needs generated history.
type FanOut struct {
	AfterTurn int // the turn that fans out, from 1
	Width     int
	Prompt    string
	OutputLen int
	Shared    bool
}

// Plan is everything Run needs.
type Plan struct {
	Target Target
	// CacheSalt is the cache_salt of a run whose target isolates its
	// prompt cache (Target.PromptCache): one run of several that must share
	// one cache, as the blocks of an A/B arm do (NewCacheSalt). Empty, Run
	// draws a salt of the run's own.
	CacheSalt string
	// Requests are sent in order, cycling when more are needed.
	Requests []dataset.Request
	// Exactly one of Open and Closed is set.
	Open   *OpenLoop
	Closed *ClosedLoop
	// MaxRequests is the number of measured requests to send: 0 means
	// len(Requests) for an open loop and no limit for a closed loop (whose
	// stages or Duration must then bound it).
	MaxRequests int
	// Duration stops dispatching this long after the start (0 = none).
	Duration time.Duration
	// Warmup requests are sent first, at most WarmupConcurrency at a time,
	// and excluded from every figure (Results marks them Warmup). They take
	// Requests[0..Warmup-1]; measured requests start at Requests[Warmup]
	// (cycling), so that none repeats a prompt warmup has just sent.
	Warmup int
	// Seed drives arrival times and think times.
	Seed int64
	// Sessions applies to requests with turns (multi-turn sessions).
	Sessions Sessions
	// Goodput is the SLO that makes a request good.
	Goodput metrics.SLO
	// Tokenizer, when set, counts the generated text of requests whose
	// stream carries no usage block.
	Tokenizer tokenizer.Tokenizer
	// Observers receive every result and periodic snapshots, on the
	// recorder goroutine (see Observer). The executor writes nothing to the
	// terminal itself.
	Observers []Observer
	// SnapshotEvery is how often observers get a Snapshot (default 250 ms).
	SnapshotEvery time.Duration
	// Interval is the time series' window length (default
	// metrics.DefaultInterval).
	Interval time.Duration
	// KeepText keeps each request's generated text in
	// metrics.Request.GeneratedText for the observers (otherwise it is kept
	// only when Tokenizer must count it): vLLM's generated_texts.
	KeepText bool
	// Preflight sends one probe request (the first dataset request with at
	// most ProbeTokens output tokens, not measured) before any load; when
	// it fails Run returns a *PreflightError and sends nothing more.
	Preflight bool
	// ReadyTimeout keeps probing a target that does not answer yet, for up
	// to this long (0: one try).
	ReadyTimeout time.Duration
	// AbortOn, when set, stops a failing run early.
	AbortOn *AbortOn
	// Abandon, when set, closes a share of the measured requests part-way
	// (readers who leave).
	Abandon *Abandon
	// KeepResults keeps every request in Outcome.Results. Runs do not:
	// results stream to observers and are dropped, so that memory does not
	// grow with the run; tests and small tools may ask for them.
	KeepResults bool
	// KeepOutputs keeps the generated text of the requests whose ID is
	// under it (the first ones sent), in metrics.Request.GeneratedText,
	// for an outputs file; the others' text is never kept.
	KeepOutputs int

	// Shard and Shards run one part of a run split across Shards processes
	// (Shards 0 or 1: the whole run). Together the shards send exactly what
	// one process would: an open loop's shard draws the whole seeded
	// schedule and keeps arrivals Shard, Shard+Shards, ...; a closed loop's
	// shard runs users u with u mod Shards == Shard, following the stages'
	// (global) user counts, and sends its share of MaxRequests (ShareOf).
	// Measured request k of the whole run uses place Warmup+k in both
	// cases, so prompts follow their arrivals. Warmup is per shard.
	Shard, Shards int
	// StartAt, when set, is the wall-clock instant of time zero: warmup runs
	// first, then Run sleeps until StartAt, so that every shard begins the
	// schedule at the same instant. A shard whose warmup ends after StartAt
	// keeps StartAt as time zero (its first arrivals leave late, and its
	// schedule lag shows it); Outcome.StartLate says by how much.
	StartAt time.Time
}

// sharded reports whether the plan is one shard of several.
func (p *Plan) sharded() bool { return p.Shards > 1 }

// ShareOf returns shard's part of n things dealt round-robin over shards
// (things shard, shard+shards, ...): n/shards, one more for the first
// n%shards shards, so that the parts add up to n.
func ShareOf(n, shard, shards int) int {
	if shards <= 1 {
		return n
	}
	if n <= shard {
		return 0
	}
	return (n - shard + shards - 1) / shards
}

// global is the run-wide index of the shard's i-th request or user.
func (p *Plan) global(i int) int {
	if !p.sharded() {
		return i
	}
	return p.Shard + i*p.Shards
}

// Starter is an Observer that wants the run's time zero (the wall-clock
// instant request offsets count from) before the first result.
type Starter interface {
	Start(zero time.Time)
}

// Observer receives a run's results as they happen. Its methods are
// called from the single recorder goroutine, so an observer needs no lock,
// and must return quickly: the recorder waits for it.
type Observer interface {
	// Result is called with every finished request, warmup ones first, then
	// in completion order.
	Result(*metrics.Request)
	// Snapshot is called every Plan.SnapshotEvery and once more, with Final
	// set, when the run has ended.
	Snapshot(metrics.Snapshot)
}

// WarmupConcurrency is how many warmup requests are in flight at most.
const WarmupConcurrency = 4

// LateThreshold is how late against its schedule a dispatch may be before it
// counts as late (metrics.Summary.LateDispatches). 10 ms is far above the dispatcher's
// usual lag (tens of microseconds) and below what moves a TTFT percentile
// that matters; a run with late dispatches did not offer the load it was
// asked to.
const LateThreshold = 10 * time.Millisecond

// Outcome is what a run measured.
type Outcome struct {
	// Overall summarises every measured request (with the run's time
	// series); its duration runs from the first dispatch to the last
	// completion.
	Overall *metrics.Summary
	// Stages has one entry per closed-loop stage (nil for an open loop).
	Stages []StageOutcome
	// Results has every request, warmup ones first, then by ID (dispatch
	// order), when Plan.KeepResults asked for them; nil otherwise.
	Results []*metrics.Request
	// Sessions has every multi-turn session's figures, in the order they
	// ended, when Plan.KeepResults asked for them.
	Sessions []*metrics.Session
	// ConfiguredRate is the open loop's Rate (0 for a closed loop).
	ConfiguredRate float64
	// Planned is the number of measured requests the plan meant to send (0
	// for a closed loop without a request count).
	Planned int
	// Interrupted is set when ctx ended the run: dispatch stopped, requests
	// in flight were canceled (metrics.ErrCanceled, counted in
	// Summary.Canceled), requests still waiting for a concurrency slot were
	// dropped unrecorded, and the figures are partial.
	Interrupted bool
	// Aborted says why AbortOn stopped the run ("" when it did not).
	Aborted string
	// Started is the run's time zero (after warmup): every offset of a
	// request is relative to it (warmup offsets are negative).
	Started time.Time
	// Elapsed runs from Started to the end of the drain.
	Elapsed time.Duration
	// Prewarmed is how many connections Target.PrewarmConnections opened
	// before warmup.
	Prewarmed int
	// StartLate is how long after Plan.StartAt the measured phase could
	// begin (warmup ran past it); 0 when it began on time or had no StartAt.
	StartLate time.Duration
}

// StageOutcome is one closed-loop stage's figures. A request belongs to the
// stage running when it was dispatched.
type StageOutcome struct {
	Index, Users int
	// Duration is how long the stage ran (shorter than configured when the
	// run stopped early); the stage's throughputs divide by it.
	Duration time.Duration
	Summary  *metrics.Summary
	// MeanUsers is the mean of the active users sampled (every 100 ms)
	// while the stage dispatched: below Users during a ramp, and below it
	// too when users stopped early.
	MeanUsers float64
}

// Run executes p against its target and returns what it measured. It
// returns an error only when the run cannot start (an invalid plan, a bad
// URL, an unreadable CA file); failed requests are recorded in the Outcome.
// When ctx ends, dispatch stops, requests in flight are canceled, requests
// not yet sent are dropped and the partial Outcome is returned with
// Interrupted set.
func Run(ctx context.Context, p Plan) (*Outcome, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if p.Target.PromptCache != "" {
		p.Target.cacheSalt = p.CacheSalt
		if p.CacheSalt == "" {
			p.Target.cacheSalt = NewCacheSalt() // each run its own
		}
	}
	preps, err := prepare(p.Target, p.Requests)
	if err != nil {
		return nil, err
	}
	c, err := newClient(p.Target, p.connections(), p.Tokenizer)
	if err != nil {
		return nil, err
	}
	c.keepOutputs = int64(p.KeepOutputs)
	// Generated history needs the text of every reply.
	c.keepText = p.KeepText || (hasSessions(p.Requests) && p.Sessions.History != HistoryRecorded)
	if p.Preflight {
		if err := preflight(ctx, c, p); err != nil {
			c.close()
			return nil, err
		}
	}
	prewarmed := 0
	if n := p.Target.PrewarmConnections; n > 0 && !p.Target.NewConnectionPerRequest {
		if prewarmed, err = prewarm(ctx, c, n); err != nil {
			c.close()
			return nil, err
		}
	}
	out := newRun(p, c, preps).execute(ctx)
	out.Prewarmed = prewarmed
	return out, nil
}

// Arrivals returns the intended send offsets of an open loop's measured
// requests: the seeded schedule of MaxRequests (or len(Requests)) arrivals,
// cut where Duration stops dispatching (an arrival exactly at Duration is
// not sent). Run sends exactly these; plan prints them. Nil for a closed
// loop, whose dispatches depend on the server. For one shard of several it
// returns the shard's arrivals: those at Shard, Shard+Shards, ... of the
// whole run's schedule.
func Arrivals(p Plan) []time.Duration {
	offs := allArrivals(p)
	if !p.sharded() {
		return offs
	}
	var mine []time.Duration
	for k := p.Shard; k < len(offs); k += p.Shards {
		mine = append(mine, offs[k])
	}
	return mine
}

// allArrivals is the whole run's schedule, whatever the shard.
func allArrivals(p Plan) []time.Duration {
	if p.Open == nil {
		return nil
	}
	n := p.MaxRequests
	if n == 0 {
		n = len(p.Requests)
	}
	var offs []time.Duration
	if p.Open.Arrival == ArrivalReplay {
		// A trace is replayed once: no cycling.
		if w := p.Warmup; w < len(p.Requests) {
			offs = Replay(p.Requests[w:w+min(n, len(p.Requests)-w)], p.Open.Speed)
		}
	} else {
		offs = Schedule(*p.Open, n, p.Seed)
	}
	if d := p.Duration; d > 0 {
		i := 0
		for i < len(offs) && offs[i] < d {
			i++
		}
		offs = offs[:i]
	}
	return offs
}

func (p *Plan) validate() error {
	var errs []error
	if len(p.Requests) == 0 {
		errs = append(errs, errors.New("plan has no requests"))
	}
	if (p.Open == nil) == (p.Closed == nil) {
		errs = append(errs, errors.New("plan needs exactly one of an open loop and a closed loop"))
	}
	if p.MaxRequests < 0 || p.Warmup < 0 || p.Duration < 0 {
		errs = append(errs, errors.New("requests, warmup and duration must not be negative"))
	}
	if p.Shards < 0 || p.Shard < 0 || (p.Shards > 0 && p.Shard >= p.Shards) || (p.Shards == 0 && p.Shard != 0) {
		errs = append(errs, fmt.Errorf("shard %d of %d: want 0 <= shard < shards", p.Shard, p.Shards))
	}
	if o := p.Open; o != nil {
		if !(o.Rate > 0) && o.Arrival != ArrivalReplay {
			errs = append(errs, fmt.Errorf("open loop rate %v: want a positive rate or +Inf", o.Rate))
		}
		switch o.Arrival {
		case "", ArrivalPoisson, ArrivalConstant:
		case ArrivalReplay:
			if !(o.Speed > 0) || math.IsInf(o.Speed, 0) {
				errs = append(errs, fmt.Errorf("replay speed %v: want a positive number", o.Speed))
			}
		case ArrivalGamma:
			if !(o.Burstiness > 0) || math.IsInf(o.Burstiness, 0) {
				errs = append(errs, fmt.Errorf("open loop burstiness %v: want a positive number", o.Burstiness))
			}
		default:
			errs = append(errs, fmt.Errorf("open loop arrival %q: want %q, %q, %q or %q", o.Arrival, ArrivalPoisson, ArrivalGamma, ArrivalConstant, ArrivalReplay))
		}
		if o.MaxConcurrency < 0 {
			errs = append(errs, errors.New("open loop max concurrency must not be negative"))
		}
	}
	if a := p.AbortOn; a != nil && (!(a.ErrorRate >= 0 && a.ErrorRate < 1) || a.MinRequests < 1) {
		errs = append(errs, fmt.Errorf("abort_on: error rate %v must be in [0, 1) and min requests %d at least 1", a.ErrorRate, a.MinRequests))
	}
	if t := p.Sessions.Think; t.Min < 0 || (t.Max < t.Min && (t.Dist != ThinkExponential || t.Max != 0)) || t.Mean < 0 {
		errs = append(errs, fmt.Errorf("turn think time [%v, %v] (mean %v): want 0 <= min <= max, mean >= 0", t.Min, t.Max, t.Mean))
	}
	if f := p.Sessions.FanOut; f != nil && (f.AfterTurn < 1 || f.Width < 1 || f.OutputLen < 1 || p.Sessions.History == HistoryRecorded) {
		errs = append(errs, fmt.Errorf("session fan-out %+v: want after turn >= 1, width >= 1, output length >= 1, and generated history", *f))
	}
	if p.Abandon != nil {
		if err := p.Abandon.validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if p.ReadyTimeout < 0 {
		errs = append(errs, errors.New("ready timeout must not be negative"))
	}
	if c := p.Closed; c != nil {
		if c.Backoff.Min < 0 || c.Backoff.Max < c.Backoff.Min {
			errs = append(errs, fmt.Errorf("closed loop backoff [%v, %v]: want 0 <= min <= max", c.Backoff.Min, c.Backoff.Max))
		}
		if len(c.Stages) == 0 {
			errs = append(errs, errors.New("closed loop has no stage"))
		}
		for i, s := range c.Stages {
			if s.Users < 0 || s.Ramp < 0 || s.Duration < 0 {
				errs = append(errs, fmt.Errorf("closed loop stage %d: users, duration and ramp must not be negative", i))
			}
			if s.Duration == 0 && i != len(c.Stages)-1 {
				errs = append(errs, fmt.Errorf("closed loop stage %d: only the last stage may have no duration", i))
			}
			if s.Duration > 0 && s.Ramp > s.Duration {
				errs = append(errs, fmt.Errorf("closed loop stage %d: ramp %v is longer than the stage (%v)", i, s.Ramp, s.Duration))
			}
		}
		if c.ThinkMin < 0 || c.ThinkMax < c.ThinkMin {
			errs = append(errs, fmt.Errorf("closed loop think time [%v, %v]: want 0 <= min <= max", c.ThinkMin, c.ThinkMax))
		}
		if len(c.Stages) > 0 && stagesLength(c.Stages) == 0 && p.Duration == 0 && p.MaxRequests == 0 {
			errs = append(errs, errors.New("closed loop has no end: set a stage duration, a duration or a request count"))
		}
	}
	switch s := p.Sessions; {
	case s.History != "" && s.History != HistoryGenerated && s.History != HistoryRecorded:
		errs = append(errs, fmt.Errorf("session history %q: want %q or %q", s.History, HistoryGenerated, HistoryRecorded))
	case s.Think.Dist != "" && s.Think.Dist != ThinkUniform && s.Think.Dist != ThinkExponential && s.Think.Dist != ThinkRecorded:
		errs = append(errs, fmt.Errorf("turn think time distribution %q: want %q, %q or %q", s.Think.Dist, ThinkUniform, ThinkExponential, ThinkRecorded))
	}
	return errors.Join(errs...)
}

// hasSessions reports whether any request is a multi-turn session.
func hasSessions(reqs []dataset.Request) bool {
	for _, r := range reqs {
		if len(r.Turns) > 0 {
			return true
		}
	}
	return false
}

// connections is how many connections the run may hold open at once.
func (p *Plan) connections() int {
	if p.Closed != nil {
		n := 1
		for _, s := range p.Closed.Stages {
			n = max(n, p.usersOf(s.Users))
		}
		return max(n, min(p.Warmup, WarmupConcurrency))
	}
	if p.Open.MaxConcurrency > 0 {
		return p.Open.MaxConcurrency
	}
	return max(p.MaxRequests, len(p.Requests))
}

// FDHeadroom is the file descriptors a run needs besides its connections
// (standard streams, result files, the runtime's poller, a listener).
const FDHeadroom = 64

// PlannedConcurrency is the most connections the plan can hold open at
// once: the users, max_concurrency, or for an open loop every request (at
// rate = inf) or as many as arrive within one request timeout; at least
// PrewarmConnections. EnsureFileLimit checks the process may open them.
func PlannedConcurrency(p Plan) int {
	n := p.connections()
	if o := p.Open; o != nil && o.MaxConcurrency == 0 {
		if p.sharded() {
			n = ShareOf(n, p.Shard, p.Shards)
		}
		if !math.IsInf(o.Rate, 1) && p.Target.Timeout > 0 {
			n = min(n, int(math.Ceil(o.Rate*p.Target.Timeout.Seconds()))+1)
		}
	}
	return max(n, p.Target.PrewarmConnections)
}

// usersOf is how many of a closed loop's first n users are this shard's.
func (p *Plan) usersOf(n int) int { return ShareOf(n, p.Shard, p.Shards) }

// maxRequests is this shard's share of a closed loop's MaxRequests (0 when
// MaxRequests is: no limit; a share may also be 0, so callers test
// MaxRequests > 0 first). An open loop's share is its part of the
// schedule.
func (p *Plan) maxRequests() int { return ShareOf(p.MaxRequests, p.Shard, p.Shards) }
