package executor

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/llmload/llmload/dataset"
	"github.com/llmload/llmload/internal/safehttp"
	"github.com/llmload/llmload/internal/secret"
	"github.com/llmload/llmload/metrics"
	"github.com/llmload/llmload/tokenizer"
)

// MaxMessage is the longest error message kept with a failed request (in
// bytes, after secrets are scrubbed): the first KiB of an error body.
const MaxMessage = 1 << 10

// Causes of a request's context ending, told apart by context.Cause.
var (
	errStall   = errors.New("stall timeout: no bytes from the server")
	errTimeout = errors.New("request timeout")
	errDrain   = errors.New("drain deadline after the end of dispatch")
	// errAbandoned is the client closing a request on purpose (Plan.Abandon).
	errAbandoned = errors.New("abandoned by the client")
)

// prepared is one dataset entry's request, built before the clock starts.
type prepared struct {
	body      []byte
	index     int
	promptLen int
	prefix    int // the dataset's PrefixTokens
	maxTokens int
	reference int // the dataset's recorded answer's length (ReferenceLen)
	ignoreEOS bool
	expected  *dataset.Expected // the prompt's expected answer, or nil
	// images the request carries, and its prompt's bytes (text and
	// images).
	images, promptBytes int
}

// client sends prepared requests and reads their streams.
type client struct {
	http *http.Client
	// fresh sends the one retry of a request whose reused connection
	// failed before any byte of its response (see do): keep-alive off, so
	// it always dials, never takes another pooled connection that may be
	// stale too. Nil when the transport is not an *http.Transport.
	fresh  *http.Client
	url    string
	base   string      // the base URL, for prewarm
	header http.Header // every header but x-request-id and traceparent
	// trace makes each request's traceparent; nil when the target's
	// trace context is off or its headers set one.
	trace   *traceIDs
	scrub   *secret.Scrubber
	timeout time.Duration
	stall   time.Duration
	// redirects is the target's follow_redirects policy.
	redirects string
	tok       tokenizer.Tokenizer
	proto     wire
	// keepOutputs keeps the generated text of the requests whose ID is
	// under it (Plan.KeepOutputs), for the outputs file.
	keepOutputs int64
	// keepText keeps the generated text of every request in its result
	// (Plan.KeepText); otherwise only when tok counts it.
	keepText bool
	// model is the model asked for, which each response's is checked
	// against (metrics.SameModel), and aliases the server's other names
	// for it (Target.ModelAliases).
	model   string
	aliases []string
}

// newClient validates the target and builds the one HTTP client of a run,
// its idle pool sized for conns concurrent streams. It uses the transport
// of Target.HTTPClient; the target's headers are set on each request with
// the defaults, before the clock starts, rather than by its RoundTripper.
func newClient(t Target, conns int, tok tokenizer.Tokenizer) (*client, error) {
	proto, err := protocolFor(t.API)
	if err != nil {
		return nil, err
	}
	hc, err := t.HTTPClient(conns)
	if err != nil {
		return nil, err
	}
	ht := hc.Transport.(*safehttp.Guard)
	var fresh *http.Client
	if tr, ok := ht.Base.(*http.Transport); ok {
		ft := tr.Clone()
		ft.DisableKeepAlives = true
		fresh = &http.Client{Transport: ft, CheckRedirect: safehttp.CheckRedirect(t.FollowRedirects)}
	}
	var trace *traceIDs
	if t.tracing() {
		trace = newTraceIDs()
	}
	return &client{
		// The headers are set on each request (below); the policy keeps
		// them, and the body, from following a redirect to another host.
		http:      &http.Client{Transport: ht.Base, CheckRedirect: safehttp.CheckRedirect(t.FollowRedirects)},
		fresh:     fresh,
		url:       t.endpoint(proto),
		base:      t.baseURL(),
		header:    t.requestHeader(),
		trace:     trace,
		scrub:     t.Scrubber(),
		timeout:   t.Timeout,
		stall:     t.StallTimeout,
		redirects: t.FollowRedirects,
		tok:       tok,
		proto:     proto,
		model:     t.Model,
		aliases:   t.ModelAliases,
	}, nil
}

// endpoint is the URL requests go to: the base URL and the API's path.
func (t Target) endpoint(proto wire) string {
	return strings.TrimSuffix(t.BaseURL, "/") + proto.Path
}

// tracing says whether the client makes a traceparent per request: on
// unless the target turns it off or sets its own in Headers.
func (t Target) tracing() bool {
	return !t.NoTraceContext && t.credentialHeader().Get("Traceparent") == ""
}

// requestHeader is every header of a load request but x-request-id and
// the traceparent the client makes: the defaults, then serverHeader.
func (t Target) requestHeader() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	maps.Copy(h, t.serverHeader())
	return h
}

// serverHeader is what every request to the target's server carries, the
// load's and the others (HTTPClient): the API's own headers (a version),
// then the credential and the target's headers, which may override them.
func (t Target) serverHeader() http.Header {
	h := http.Header{}
	if p, err := protocolFor(t.API); err == nil {
		p.setHeaders(h)
	}
	maps.Copy(h, t.credentialHeader())
	return h
}

// credentialHeader is the key's header when APIKey is set (KeyHeader),
// then Headers.
func (t Target) credentialHeader() http.Header {
	h := http.Header{}
	if name, value := t.KeyHeader(); name != "" {
		h.Set(name, value)
	}
	for k, v := range t.Headers {
		h.Set(k, v)
	}
	return h
}

// KeyHeader is the header that carries APIKey in the target's API, and its
// value: "Authorization: Bearer <key>" for the OpenAI APIs, "x-api-key:
// <key>" for Anthropic's Messages API; "", "" without a key. It is sent to
// the target's own scheme, host and port only (see HTTPClient).
func (t Target) KeyHeader() (name, value string) {
	if t.APIKey == "" {
		return "", ""
	}
	p, err := protocolFor(t.API)
	if err != nil {
		// newClient refuses the API; a bearer token is as good as any.
		p = wire{protocol: chat{}}
	}
	h := http.Header{}
	p.setKey(h, t.APIKey)
	for k, v := range h {
		return k, v[0]
	}
	return "", ""
}

// Preview is one load request as the client sends it.
type Preview struct {
	Method, URL string
	// Header holds every header, x-request-id included (with the run's
	// part shown as <run>) and traceparent (its random ids shown as
	// <trace-id> and <parent-id>); credentials are NOT redacted here.
	Header http.Header
	// Body is the exact JSON body.
	Body []byte
}

// PreviewRequest builds the request the load client sends for r, from the
// same code the run uses, without sending anything (a sim:// base URL is
// kept as written). The caller redacts credentials before showing it.
func PreviewRequest(t Target, r dataset.Request) (Preview, error) {
	proto, err := protocolFor(t.API)
	if err != nil {
		return Preview{}, err
	}
	preps, err := prepare(t, []dataset.Request{r})
	if err != nil {
		return Preview{}, err
	}
	h := t.requestHeader()
	h.Set("X-Request-Id", "llmload-<run>-0")
	if t.tracing() {
		h.Set("Traceparent", traceparentPreview)
	}
	return Preview{Method: http.MethodPost, URL: t.endpoint(proto), Header: h, Body: preps[0].body}, nil
}

// HTTPClient returns an HTTP client set up as the load's is: the target's
// TLS settings (CAFile, InsecureSkipVerify), HTTP/2 when asked (h2c for an
// http:// BaseURL), keep-alive with an idle pool of conns connections, and
// compression off. Its RoundTripper adds the target's headers to every
// request to the target's own scheme, host and port: the API's own (the
// Messages API's anthropic-version), the key's header when APIKey is set
// ("Authorization: Bearer <key>", or the API's own: KeyHeader), then
// Headers.
// It is for the other requests a run makes to the same server (a /tokenize
// endpoint, say), so that they see the same authentication and TLS.
func (t Target) HTTPClient(conns int) (*http.Client, error) {
	u, err := url.Parse(t.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("target base_url %q: want an http:// or https:// URL with a host", t.Scrubber().Scrub(t.BaseURL))
	}
	tlsConf := &tls.Config{InsecureSkipVerify: t.InsecureSkipVerify}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("target ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("target ca_file %s: no PEM certificate in it", t.CAFile)
		}
		tlsConf.RootCAs = pool
	}
	// The idle pool follows the concurrency (and holds every prewarmed
	// connection); MaxConnsPerHost stays unlimited, so a request never
	// waits for a connection slot: any wait shows as blocked.
	conns = max(conns, t.PrewarmConnections, 1)
	dial := stampDialer(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second})
	if testDial != nil {
		dial = testDial
	}
	tr := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		DialContext:         dial,
		TLSClientConfig:     tlsConf,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConns:        conns,
		MaxIdleConnsPerHost: conns,
		IdleConnTimeout:     90 * time.Second,
		// Compression would make the server buffer the stream.
		DisableCompression: true,
		ReadBufferSize:     4 << 10,
		WriteBufferSize:    4 << 10,
		ForceAttemptHTTP2:  t.HTTP2,
		DisableKeepAlives:  t.NewConnectionPerRequest,
	}
	if t.HTTP2 && u.Scheme == "http" {
		// Cleartext HTTP/2 with prior knowledge (h2c).
		var p http.Protocols
		p.SetUnencryptedHTTP2(true)
		tr.Protocols = &p
	}
	// The credential and the configured headers go to the target's own
	// scheme, host and port, never elsewhere, whatever a redirect says.
	return &http.Client{
		Transport:     &safehttp.Guard{Base: tr, Origin: u, Header: t.serverHeader()},
		CheckRedirect: safehttp.CheckRedirect(t.FollowRedirects),
	}, nil
}

// testDial, set by tests alone, dials the connections of every transport
// HTTPClient builds in place of TCP: in-memory connections let a test run
// the client under testing/synctest's fake clock, where time moves only
// when every goroutine waits. Nil outside tests.
var testDial func(ctx context.Context, network, addr string) (net.Conn, error)

// prepare builds the JSON body of every dataset entry in the target's API:
// the protocol's body, "ignore_eos": true when the target asks for it (as
// vLLM's --ignore-eos; no dataset sets it), the prompt cache policy's
// fields, then the target's extra body over all, where a nil (HCL null)
// value removes the field.
func prepare(t Target, reqs []dataset.Request) ([]prepared, error) {
	proto, err := protocolFor(t.API)
	if err != nil {
		return nil, err
	}
	out := make([]prepared, len(reqs))
	for i, r := range reqs {
		if r.Images > 0 && proto.Name == APIMessages {
			if err := messagesImagesOK(r.Messages); err != nil {
				return nil, fmt.Errorf("request %d (dataset index %d): %w", i, r.Index, err)
			}
		}
		if r.Images > 0 && proto.Name != APIChat && proto.Name != APIMessages {
			// The chat API's image_url parts, the Messages API's image
			// blocks.
			return nil, fmt.Errorf("request %d (dataset index %d) carries images, which only the chat API (content parts) and the Messages API (image blocks) send; target api %q would drop them", i, r.Index, proto.Name)
		}
		body := proto.Body(t, r)
		if t.IgnoreEOS {
			body["ignore_eos"] = true
		}
		setPromptCache(&t, body)
		for k, v := range t.ExtraBody {
			if v == nil {
				delete(body, k)
				continue
			}
			body[k] = v
		}
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("request %d (dataset index %d): %w", i, r.Index, err)
		}
		out[i] = prepared{body: b, index: r.Index, promptLen: r.PromptLen, prefix: r.PrefixTokens, maxTokens: r.OutputLen, reference: r.ReferenceLen, ignoreEOS: t.IgnoreEOS, expected: r.Expected,
			images: r.Images, promptBytes: r.PromptBytes}
	}
	return out, nil
}

// describe fills the fields of res that come from the request itself.
func (p *prepared) describe(res *metrics.Request) {
	res.DatasetIndex = p.index
	res.MaxTokens, res.ReferenceLen = p.maxTokens, p.reference
	res.IgnoreEOS = p.ignoreEOS
	res.DatasetPromptTokens = p.promptLen
	res.Images, res.PromptBytes = p.images, p.promptBytes
	res.IdealCachedTokens = p.prefix
	res.PromptTokens, res.PromptTokensSource = p.promptLen, metrics.SourceDataset
	res.OutputTokensSource = metrics.SourceEvents // until a stream says more
}

// reading is the state of reading one stream, reused across requests. The
// chunk lives here rather than on read's stack: a protocol's Parse is an
// interface call, through which it would escape once per request.
type reading struct {
	br *bufio.Reader
	ch chunk
}

var readings = sync.Pool{New: func() any { return &reading{br: bufio.NewReaderSize(nil, 4<<10)} }}

// do sends p, reads the whole stream and fills res (whose identity and
// schedule fields the caller has set). start is the run's time zero. A
// failure is recorded in res, never returned.
func (c *client) do(ctx context.Context, start time.Time, p *prepared, res *metrics.Request) {
	p.describe(res)
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.CancelFunc(func() {})
	if c.timeout > 0 {
		ctx, stop = context.WithTimeoutCause(ctx, c.timeout, errTimeout)
	}
	// release ends the request's context. A stream that ended at [DONE]
	// hands its body, and release, to afterDone; every other request
	// releases both as it returns.
	release := func() { stop(); cancel(nil) }
	var rest io.ReadCloser
	defer func() {
		if rest != nil {
			afterDone(rest, release)
		} else {
			release()
		}
	}()
	// The connection phases are traced per request (one small allocation
	// each); read once the headers are in.
	ph := newPhases()
	if c.trace != nil {
		// Made before the clock starts, and kept by a retry: the record
		// holds what the server received.
		res.Traceparent = c.trace.next()
	}
	req, err := c.request(ctx, ph, p, res)
	if err != nil {
		c.fail(res, metrics.ErrConnect, err)
		return
	}

	t0 := time.Now()
	res.Sent = t0.Sub(start)
	resp, err := c.http.Do(req)
	if err != nil && c.fresh != nil && ctx.Err() == nil && ph.stale() {
		// The server closed the pooled connection while it sat idle
		// (llama.cpp's llama-server does after every streamed reply, its
		// headers saying keep-alive): the request died on it before any
		// byte of an answer. It is sent once more, on a connection of its
		// own; its clock keeps running from the first send (t0), as the
		// user's would, so TTFT, E2EL, written and ttfb include the failed
		// attempt, and the phases (new_conn, connect, blocked) are the
		// retry's. A retry that fails too fails the request with its own
		// kind, and its message says it was a retry.
		stale := err
		res.Retried = true
		ph = newPhases()
		if req, err = c.request(ctx, ph, p, res); err == nil {
			resp, err = c.fresh.Do(req)
		}
		if err != nil {
			err = fmt.Errorf("retried on a new connection after the reused one failed before any byte of the response (%v): %w", stale, err)
		}
	}
	ph.fill(t0, res)
	if err != nil {
		if re, ok := safehttp.IsRedirect(err); ok {
			c.fail(res, metrics.ErrRedirect, re)
			return
		}
		kind := metrics.ErrConnect
		if clientLimit(err) {
			kind = metrics.ErrClientLimit
			err = fmt.Errorf("the client's own limit, not the server: %w", err)
		}
		c.failCtx(ctx, res, kind, err)
		return
	}
	defer func() {
		if rest == nil {
			resp.Body.Close()
		}
	}()
	res.StatusCode = resp.StatusCode
	if loc := safehttp.Location(resp); loc != "" || resp.StatusCode >= 300 && resp.StatusCode <= 399 {
		// Not followed (follow_redirects): the run would measure, and send
		// its credentials to, a server it was not pointed at.
		c.body(resp, res)
		c.fail(res, metrics.ErrRedirect, fmt.Errorf("HTTP %d redirect to %q, not followed (follow_redirects = %q)", resp.StatusCode, loc, cmp.Or(c.redirects, safehttp.Never)))
		return
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		b := c.body(resp, res)
		kind := metrics.ErrHTTPStatus
		if resp.StatusCode == http.StatusTooManyRequests {
			kind = metrics.ErrRateLimited
			res.RetryAfter = resp.Header.Get("Retry-After")
		}
		c.failCtx(ctx, res, kind, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b))
		return
	}

	tr := &timedReader{r: resp.Body, conn: ph.stamps()}
	if c.stall > 0 {
		tr.watch = watchStalls(c.stall, func() { cancel(errStall) })
		defer tr.watch.stop()
	}
	rd := readings.Get().(*reading)
	rd.br.Reset(tr)
	defer func() { rd.br.Reset(nil); readings.Put(rd) }()
	defer func() { res.BytesReceived = tr.n }()
	if !c.proto.Streaming {
		c.readWhole(ctx, rd.br, tr, t0, &rd.ch, res)
		return
	}
	if !isSSE(resp.Header.Get("Content-Type"), rd.br) {
		b, _ := io.ReadAll(io.LimitReader(rd.br, 4*MaxMessage))
		c.failCtx(ctx, res, metrics.ErrNotSSE, fmt.Errorf("HTTP %d %s, not an event stream: %s",
			resp.StatusCode, resp.Header.Get("Content-Type"), bytes.TrimSpace(b)))
		return
	}
	// stall_timeout is the silence allowed between two events: keep-alive
	// comments do not reset it.
	tr.eventsOnly = true
	rd.ch.expected = p.expected
	if c.read(ctx, newSSEReader(rd.br), tr, t0, &rd.ch, res) {
		rest = resp.Body
	}
}

// request builds the POST of p, traced into ph.
func (c *client) request(ctx context.Context, ph *phases, p *prepared, res *metrics.Request) (*http.Request, error) {
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, &ph.trace), http.MethodPost, c.url, bytes.NewReader(p.body))
	if err != nil {
		return nil, err
	}
	req.Header = c.header.Clone()
	req.Header.Set("X-Request-Id", res.RequestID)
	if res.Traceparent != "" {
		req.Header.Set("Traceparent", res.Traceparent)
	}
	return req, nil
}

// After [DONE] a correct server ends the body at once; the client reads to
// its end so that the connection is reused. A server that holds the body
// open must not hold the request (a closed loop's user would wait for
// stall_timeout after every answer): afterDone waits doneWait for the end,
// then leaves the rest to a goroutine, which gives the connection up
// (releasing the request's context closes it) after drainWait.
const (
	doneWait  = 5 * time.Millisecond
	drainWait = time.Second
	// drainBytes is the most read after [DONE]: a server that keeps
	// talking loses the connection.
	drainBytes = 4 << 10
)

// afterDone reads what body holds after [DONE], then closes it and calls
// release.
func afterDone(body io.ReadCloser, release func()) {
	ended := make(chan struct{})
	go func() {
		_, _ = io.CopyN(io.Discard, body, drainBytes)
		close(ended)
	}()
	wait := time.NewTimer(doneWait)
	select {
	case <-ended:
		wait.Stop()
		body.Close()
		release()
		return
	case <-wait.C:
	}
	go func() {
		giveUp := time.AfterFunc(drainWait, release)
		<-ended
		giveUp.Stop()
		body.Close()
		release()
	}()
}

// body reads the start of an error answer, for its message, and counts
// the bytes read.
func (c *client) body(resp *http.Response, res *metrics.Request) []byte {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4*MaxMessage))
	res.BytesReceived = int64(len(b))
	return bytes.TrimSpace(b)
}

// isSSE reports whether a 2xx answer is an event stream: its Content-Type
// says text/event-stream or, when it says something else or nothing, its
// first bytes look like one (some proxies drop or rewrite the header).
// It peeks at the body without consuming it.
func isSSE(contentType string, br *bufio.Reader) bool {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(contentType)), "text/event-stream") {
		return true
	}
	for n := 16; ; n *= 4 {
		b, err := br.Peek(n)
		t := bytes.TrimLeft(b, " \t\r\n")
		if len(t) > 0 && (len(t) >= 6 || err != nil) {
			for _, p := range []string{"data:", "event:", ":", "id:", "retry:"} {
				if bytes.HasPrefix(t, []byte(p)) {
					return true
				}
			}
			return false
		}
		if err != nil || n >= 1024 {
			// Nothing but blanks: leave it to the stream reader, which
			// calls an empty stream truncated.
			return true
		}
	}
}

// read consumes the event stream and fills the latency and token fields;
// ch is scratch for the parsed events. A request the run abandons after
// some tokens (see abandonment) is closed here once it has them.
//
// It returns true when the stream ended at [DONE] as it should: the body's
// end is then the caller's to read (afterDone).
func (c *client) read(ctx context.Context, sr *sseReader, tr *timedReader, t0 time.Time, ch *chunk, res *metrics.Request) (done bool) {
	expected := ch.expected // each event's parse resets the chunk
	keepText := c.keepText || c.tok != nil || res.ID < c.keepOutputs || expected != nil
	ch.hash = fnvOffset
	ab := abandonmentOf(ctx)
	var (
		first      time.Time
		last       time.Time
		usage      bool
		completion int
		text       []byte
		out        outputFacts
		tools      toolCalls
		ph         streamPhases
		modelSeen  bool
	)
	if n := res.MaxTokens; n > 1 {
		res.ITL = make([]time.Duration, 0, min(n-1, 4096))
	}
	ended := false // [DONE] or a finish_reason: the stream ended as it should
	for {
		name, data, err := sr.next()
		if err != nil {
			switch {
			case errors.Is(err, errOversized):
				c.fail(res, metrics.ErrOversized, err)
			case !errors.Is(err, io.EOF):
				c.failCtx(ctx, res, metrics.ErrStream, err)
			case !ended:
				c.failCtx(ctx, res, metrics.ErrTruncatedStream,
					fmt.Errorf("the stream ended after %d output events and %d bytes without a finish_reason or [DONE]", res.OutputEvents, tr.n))
			}
			break
		}
		at := tr.at
		if string(name) == "error" {
			c.fail(res, metrics.ErrStream, fmt.Errorf("error event: %s", excerpt(data)))
			break
		}
		if err := c.proto.Parse(name, data, ch, keepText); err != nil {
			c.fail(res, metrics.ErrMalformed, err)
			break
		}
		if tr.watch != nil && !ch.keepAlive {
			tr.watch.note(at)
		}
		if ch.errMsg != "" {
			c.fail(res, metrics.ErrStream, errors.New(ch.errMsg))
			break
		}
		if ch.fingerprint != "" && res.SystemFingerprint == "" {
			// Server text: escaped (control characters) before anything
			// prints it.
			res.SystemFingerprint = strings.Clone(secret.Printable(strings.ToValidUTF8(ch.fingerprint[:min(len(ch.fingerprint), 128)], "\uFFFD")))
		}
		if ch.model != "" && !modelSeen {
			// The first chunk that names a model is checked; a stream
			// does not change model midway.
			modelSeen = true
			if !metrics.SameModel(c.model, ch.model) && !slices.Contains(c.aliases, ch.model) {
				res.ServedModel = strings.Clone(strings.ToValidUTF8(ch.model[:min(len(ch.model), 200)], "\uFFFD"))
			}
		}
		if ch.output {
			if res.OutputEvents == 0 {
				first = at
			} else {
				res.ITL = append(res.ITL, at.Sub(last))
			}
			last = at
			res.OutputEvents++
			res.OutputBytes += ch.textBytes
			out.event(ch)
			text = append(text, ch.text...)
			tools.add(ch.tools)
			ph.add(res, ch, at, t0)
			if n := maxOutputEvents(res.MaxTokens); n > 0 && res.OutputEvents > n {
				// A server that ignores max_tokens and streams on would
				// grow the request's record until the whole-request
				// timeout: it is cut here, in bounded memory.
				c.fail(res, metrics.ErrOversized, fmt.Errorf("more than %d output events for max_tokens %d: the server ignored the cap, and the stream was cut", n, res.MaxTokens))
				break
			}
		}
		if ch.finish != "" {
			res.FinishReason = ch.finish
			ended = true
			if ch.finish == "abort" || ch.finish == "error" {
				c.fail(res, metrics.ErrServerAbort, fmt.Errorf("the server ended the stream with finish_reason %q after %d output events", ch.finish, res.OutputEvents))
				break
			}
		}
		ch.engine.note(res)
		if ch.hasUsage {
			usage = true
			completion = ch.completionTokens
			if ch.reasoningTokens > 0 {
				res.ReasoningTokens = ch.reasoningTokens
			}
		}
		if ch.promptTokens > 0 {
			// With the usage, or ahead of it (Messages' message_start).
			res.PromptTokens, res.PromptTokensSource = ch.promptTokens, metrics.SourceUsage
		}
		if ch.done {
			ended, done = true, true
			break
		}
		if ab != nil && ab.tokens > 0 && !ended && res.OutputEvents >= ab.tokens {
			// The reader closes the tab: cancel the request, so that the
			// connection closes (HTTP/1.1) or the stream is reset (HTTP/2)
			// and the server sees the client go.
			ab.cancel(errAbandoned)
			c.abandon(res, ab)
			break
		}
	}
	if res.OutputEvents > 0 {
		res.TTFT = first.Sub(t0)
		res.E2E = last.Sub(t0)
	}
	if res.ReasoningEvents == 0 {
		res.ITLAnswer = nil // ITL holds the answer's gaps
	} else if res.ReasoningTokens == 0 {
		res.ReasoningTokens = res.ReasoningEvents
	}
	if res.OutputEvents > 0 {
		res.OutputHash = ch.hash
		out.note(res)
		tools.note(res)
	}
	if c.keepText || res.ID < c.keepOutputs {
		res.GeneratedText = string(text)
	}
	if c.keepText && res.ToolCalls > 0 {
		res.Calls = tools.all()
	}
	switch {
	case usage:
		res.OutputTokens, res.OutputTokensSource = completion, metrics.SourceUsage
		if _, remote := c.tok.(*tokenizer.Server); c.tok != nil && !remote && res.OK() {
			// The client's own count, to compare with the server's (a
			// remote tokenizer would add a request per request: skipped).
			res.TokenizerOutputTokens = len(c.tok.Encode(string(text), false))
		}
	case c.tok != nil:
		res.GeneratedText = string(text)
		res.OutputTokens, res.OutputTokensSource = len(c.tok.Encode(res.GeneratedText, false)), metrics.SourceTokenizer
	default:
		res.OutputTokens, res.OutputTokensSource = res.OutputEvents, metrics.SourceEvents
	}
	if res.OK() && res.OutputEvents == 0 {
		c.fail(res, metrics.ErrEmpty, errors.New("the stream ended without an output token"))
	}
	// The answer against the prompt's expected one (its whole text,
	// reasoning streamed apart included).
	if expected != nil && res.OK() {
		pass := expected.Judge(string(text))
		res.ExpectedPass = &pass
	}
	res.ShortOutput = shortOutput(res)
	return done
}

// streamPhases follows a stream's reasoning, answer and tool-call phases.
type streamPhases struct {
	lastReasoning, lastAnswer time.Time
}

// add notes an output event of ch arriving at at: the first event of each
// phase, its count, and the gap since the phase's previous event.
func (p *streamPhases) add(res *metrics.Request, ch *chunk, at, t0 time.Time) {
	if ch.reasoning {
		if res.ReasoningEvents == 0 {
			res.TTFTReasoning = at.Sub(t0)
		} else {
			res.ITLReasoning = append(res.ITLReasoning, at.Sub(p.lastReasoning))
		}
		res.ReasoningEvents++
		p.lastReasoning = at
	}
	if ch.toolCall {
		if res.ToolCallEvents == 0 {
			res.TTFTToolCall = at.Sub(t0)
		}
		res.ToolCallEvents++
	}
	if ch.answer {
		if res.AnswerEvents == 0 {
			res.TTFTAnswer = at.Sub(t0)
		} else {
			res.ITLAnswer = append(res.ITLAnswer, at.Sub(p.lastAnswer))
		}
		res.AnswerEvents++
		p.lastAnswer = at
	}
}

// readWhole reads the answer of an API that does not stream (embeddings):
// the whole JSON body, parsed once. Its latency (E2E) runs from t0 to the
// body's last byte; it has no first token, no gaps and no output tokens.
func (c *client) readWhole(ctx context.Context, br *bufio.Reader, tr *timedReader, t0 time.Time, ch *chunk, res *metrics.Request) {
	res.OutputTokensSource = metrics.SourceNone
	body, err := io.ReadAll(io.LimitReader(br, maxWholeBody+1))
	if err != nil {
		c.failCtx(ctx, res, metrics.ErrStream, err)
		return
	}
	if len(body) > maxWholeBody {
		c.fail(res, metrics.ErrMalformed, fmt.Errorf("the answer is over %d MiB", maxWholeBody>>20))
		return
	}
	res.E2E = tr.at.Sub(t0)
	if err := c.proto.Parse(nil, body, ch, false); err != nil {
		c.fail(res, metrics.ErrMalformed, err)
		return
	}
	if ch.errMsg != "" {
		c.fail(res, metrics.ErrStream, errors.New(ch.errMsg))
		return
	}
	if ch.hasUsage && ch.promptTokens > 0 {
		res.PromptTokens, res.PromptTokensSource = ch.promptTokens, metrics.SourceUsage
	}
}

// maxOutputEvents bounds the output events read for a request of
// maxTokens (0: no bound, when it has none): twice the cap, and at least
// 64 more, since an engine may send a token's bytes over two events.
func maxOutputEvents(maxTokens int) int {
	if maxTokens <= 0 {
		return 0
	}
	return max(2*maxTokens, maxTokens+64)
}

// maxWholeBody bounds a non-streamed answer.
const maxWholeBody = 64 << 20

// shortOutput reports a completed request that asked to ignore EOS but got
// fewer tokens than max_tokens although the server said it finished
// normally (stop or length): the server did not honour ignore_eos, or
// miscounted. Only the server's own count (usage) is trusted for it: event
// counts and a client tokenizer's recount can differ from the truth.
func shortOutput(res *metrics.Request) bool {
	return res.OK() && res.IgnoreEOS && res.MaxTokens > 0 &&
		res.OutputTokensSource == metrics.SourceUsage && res.OutputTokens < res.MaxTokens &&
		(res.FinishReason == "stop" || res.FinishReason == "length")
}

// close releases the idle connections at the end of a run.
func (c *client) close() { c.http.CloseIdleConnections() }

// fail records a failure. The message is scrubbed of secrets (the API
// key, sensitive header values and variables, URL passwords) and then cut
// to MaxMessage, in that order, so that no part of a secret survives.
func (c *client) fail(res *metrics.Request, kind metrics.ErrorKind, err error) {
	res.Error = kind
	// A server's words are printed to terminals and logs: escaped.
	res.ErrorMessage = secret.Printable(c.scrub.ScrubClip(err.Error(), MaxMessage))
}

// failCtx records a failure classified by why the request's context ended
// (stall, timeout, drain deadline, interruption) when err comes from its
// ending, else (the context is still live, or err is a failure of its own
// that raced with the ending) as fallback.
func (c *client) failCtx(ctx context.Context, res *metrics.Request, fallback metrics.ErrorKind, err error) {
	cause := context.Cause(ctx)
	if cause != nil && !errors.Is(err, cause) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		cause = nil
	}
	switch {
	case cause == nil:
		c.fail(res, fallback, err)
	case errors.Is(cause, errStall):
		c.fail(res, metrics.ErrStall, fmt.Errorf("%w (%v)", errStall, c.stall))
	case errors.Is(cause, errTimeout):
		c.fail(res, metrics.ErrTimeout, fmt.Errorf("%w (%v)", errTimeout, c.timeout))
	case errors.Is(cause, errDrain):
		c.fail(res, metrics.ErrTimeout, errDrain)
	case errors.Is(cause, errAbandoned):
		c.abandon(res, abandonmentOf(ctx))
	default:
		c.fail(res, metrics.ErrCanceled, fmt.Errorf("canceled: %v", cause))
	}
}

// Scrubber returns the scrubber of the target's secrets: the API key, the
// values of sensitive headers (see secret.SensitiveHeader and
// SensitiveHeaders), Secrets, and the base URL's password.
func (t Target) Scrubber() *secret.Scrubber {
	s := secret.New(t.APIKey, secret.URLPassword(t.BaseURL))
	for k, v := range t.Headers {
		if secret.SensitiveHeader(k, t.SensitiveHeaders) {
			s.Add(v)
		}
	}
	s.Add(t.Secrets...)
	return s
}
