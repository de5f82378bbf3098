package executor

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/llmload/llmload/dataset"
)

// protocolCases are the requests whose bodies the golden files hold: a
// bare prompt and a conversation to the default target (the fields vLLM's
// benchmark sends), then a target with ignore_eos and an extra body that
// overrides a default, adds a field and removes one (null).
var protocolCases = []struct {
	target Target
	req    dataset.Request
}{
	{Target{Model: "m"}, dataset.Request{Index: 0, Prompt: "Say hello.", PromptLen: 3, OutputLen: 16}},
	{Target{Model: "m"}, dataset.Request{Index: 1, Prompt: "flattened conversation", PromptLen: 9, OutputLen: 8, Messages: []dataset.Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Say hello."},
	}}},
	{Target{Model: "m", IgnoreEOS: true, ExtraBody: map[string]any{"temperature": 0.7, "top_k": 10.0, "max_tokens": nil}},
		dataset.Request{Index: 2, Prompt: "Count to three.", PromptLen: 4, OutputLen: 3}},
}

// protocolRequests are the requests of protocolCases.
var protocolRequests = func() []dataset.Request {
	var reqs []dataset.Request
	for _, c := range protocolCases {
		reqs = append(reqs, c.req)
	}
	return reqs
}()

// Every registered protocol builds the bodies in
// testdata/protocol/<api>.body.json (go test -update rewrites them), with
// the fields prepare adds for every API: ignore_eos from the target and the
// extra body over the defaults.
func TestProtocolBodies(t *testing.T) {
	for _, api := range APIs() {
		t.Run(api, func(t *testing.T) {
			var preps []prepared
			for _, c := range protocolCases {
				c.target.API = api
				p, err := prepare(c.target, []dataset.Request{c.req})
				if err != nil {
					t.Fatal(err)
				}
				preps = append(preps, p...)
			}
			var got bytes.Buffer
			got.WriteString("[\n")
			for i, p := range preps {
				if i > 0 {
					got.WriteString(",\n")
				}
				got.WriteString("  ")
				if err := json.Indent(&got, p.body, "  ", "  "); err != nil {
					t.Fatal(err)
				}
			}
			got.WriteString("\n]\n")
			file := filepath.Join("testdata", "protocol", api+".body.json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (a new protocol needs its golden file: go test -update)", err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", file, diff)
			}
		})
	}
}

// The payloads every OpenAI-style protocol reads alike: the end marker,
// usage, errors, finish reasons and what is not a chunk at all.
var sharedChunks = []chunkCase{
	{in: `[DONE]`, want: chunk{done: true}},
	{in: " [DONE]\n", want: chunk{done: true}},
	{in: `{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46}}`,
		want: chunk{hasUsage: true, promptTokens: 12, completionTokens: 34}},
	{in: `{"choices":[{"index":0,"finish_reason":"stop"}]}`, want: chunk{finish: "stop"}},
	{in: `{"choices":[{"index":0,"finish_reason":null}],"usage":null}`},
	// What engines say of the request itself: llama.cpp's usage and
	// timings (b1-80fb11a, as engines/testdata/NOTES.md recorded them),
	// vLLM's per-request metrics, Ollama's zeroed usage.
	{in: `{"choices":[],"usage":{"completion_tokens":8,"prompt_tokens":11,"total_tokens":19,"prompt_tokens_details":{"cached_tokens":10}},` +
		`"timings":{"cache_n":10,"prompt_n":1,"prompt_ms":4.515,"prompt_per_token_ms":4.515,"predicted_n":8,"predicted_ms":33.81,"predicted_per_token_ms":4.22625}}`,
		want: chunk{hasUsage: true, promptTokens: 11, completionTokens: 8,
			engine: engineNumbers{cached: 10, hasCached: true, prefill: 4515 * time.Microsecond, tpot: 4226250 * time.Nanosecond}}},
	{in: `{"choices":[],"timings":{"cache_n":3,"prompt_ms":-1,"predicted_n":0,"predicted_ms":5}}`,
		want: chunk{engine: engineNumbers{cached: 3, hasCached: true}}},
	{in: `{"choices":[],"usage":{"prompt_tokens":42,"completion_tokens":128,"total_tokens":170},` +
		`"metrics":{"time_to_first_token_ms":85.2,"generation_time_ms":1240.5,"queue_time_ms":12.3,"mean_itl_ms":9.1,"tokens_per_second":103.2}}`,
		want: chunk{hasUsage: true, promptTokens: 42, completionTokens: 128,
			engine: engineNumbers{ttft: 97500 * time.Microsecond, queue: 12300 * time.Microsecond, tpot: 9100 * time.Microsecond}}},
	// Speculative decoding: llama.cpp's final chunk with a draft model
	// (a b9251 capture), vLLM's --per-request-spec-decode-metrics (its
	// docs' example), SGLang's return_spec_tokens_details (object or one
	// per choice); a count that cannot be is none.
	{in: `{"choices":[],"object":"chat.completion.chunk","usage":{"completion_tokens":665,"prompt_tokens":808,"total_tokens":1473,"prompt_tokens_details":{"cached_tokens":804}},` +
		`"timings":{"cache_n":804,"prompt_n":4,"prompt_ms":128.301,"prompt_per_token_ms":32.07525,"prompt_per_second":31.18,"predicted_n":665,"predicted_ms":20629.211,"predicted_per_token_ms":31.02,"predicted_per_second":32.24,"draft_n":604,"draft_n_accepted":515}}`,
		want: chunk{hasUsage: true, promptTokens: 808, completionTokens: 665,
			engine: engineNumbers{cached: 804, hasCached: true, prefill: 128300999 /* 128.301 ms as float64 rounds it */, tpot: 31021369 * time.Nanosecond, drafted: 604, accepted: 515}}},
	{in: `{"choices":[],"metrics":{"time_to_first_token_ms":10,"queue_time_ms":2,"speculative_decoding":{"mean_acceptance_length":1.2325581395348837,` +
		`"draft_acceptance_rate":0.07751937984496124,"acceptance_histogram":[39,1,0,3],"num_spec_steps":43,"num_accepted_draft_tokens":10,"num_draft_tokens":129,"num_spec_tokens":3}}}`,
		want: chunk{engine: engineNumbers{ttft: 12 * time.Millisecond, queue: 2 * time.Millisecond, drafted: 129, accepted: 10}}},
	{in: `{"choices":[],"sglext":{"spec_tokens_details":{"spec_accept_rate":0.2930,"spec_accept_length":2.4651,"spec_num_correct_drafts":63,"spec_num_proposed_drafts":215,"spec_verify_ct":43}}}`,
		want: chunk{engine: engineNumbers{drafted: 215, accepted: 63}}},
	{in: `{"choices":[],"sglext":{"spec_tokens_details":[{"spec_num_correct_drafts":5,"spec_num_proposed_drafts":8}]}}`,
		want: chunk{engine: engineNumbers{drafted: 8, accepted: 5}}},
	{in: `{"choices":[],"timings":{"draft_n":4,"draft_n_accepted":9}}`},
	{in: `{"choices":[],"timings":{"draft_n":"4","draft_n_accepted":1}}`},
	{in: `{"choices":[],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`, want: chunk{hasUsage: true}},
	{in: `{"choices":[],"system_fingerprint":"b1-80fb11a"}`, want: chunk{fingerprint: "b1-80fb11a"}},
	{in: `{"error":{"message":"out of memory","code":500}}`, want: chunk{errMsg: "server error: out of memory"}},
	{in: `{"error":"plain"}`, want: chunk{errMsg: "server error: plain"}},
	{in: `{"object":"error","message":"bad"}`, want: chunk{errMsg: "server error: bad"}},
	{in: `{"id":"x"}`},
	{in: `{"choices":null}`},
	{in: `{"choices":"nope"}`, err: true},
	{in: `[1,2]`, err: true},
	{in: `{"choices":[{"text":"a"`, err: true},
	{in: ``, err: true},
}

type chunkCase struct {
	event string // the SSE event name, for APIs that name their events
	in    string
	want  chunk
	err   bool
}

// Each protocol reads its own API's chunks, as vLLM sends them, and the
// shared envelope; the other API's output fields are not output to it.
func TestProtocolParse(t *testing.T) {
	own := map[string][]chunkCase{
		APICompletions: {
			{in: `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" hi","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`,
				want: chunk{output: true, answer: true, text: []byte(" hi"), model: "m"}},
			{in: `{"choices":[{"text":"a","finish_reason":"length"}]}`, want: chunk{output: true, answer: true, text: []byte("a"), finish: "length"}},
			{in: `{"choices":[{"text":"","finish_reason":"stop"}]}`, want: chunk{finish: "stop"}},
			{in: `{"choices":[{"text":null}]}`},
			{in: `{"choices":[{"text":"a"},{"text":"b"}]}`, want: chunk{output: true, answer: true, text: []byte("ab")}},
			{in: `{"choices":[{"text":"x"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`,
				want: chunk{output: true, answer: true, text: []byte("x"), hasUsage: true, promptTokens: 1, completionTokens: 2}},
			{in: `{"choices":[{"delta":{"content":"not ours"}}]}`},
		},
		APIChat: {
			{in: `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":" hi"},"logprobs":null,"finish_reason":null}]}`,
				want: chunk{output: true, answer: true, text: []byte(" hi"), model: "m"}},
			{in: `{"choices":[{"delta":{"role":"assistant","content":""}}]}`},
			{in: `{"choices":[{"delta":{"role":"assistant","content":null}}]}`},
			{in: `{"choices":[{"delta":{"content":"h\u00e9\n"}}]}`, want: chunk{output: true, answer: true, text: []byte("h\u00e9\n")}},
			{in: `{"choices":[{"delta":{"reasoning_content":"hm"}}]}`, want: chunk{output: true, reasoning: true, text: []byte("hm")}},
			{in: `{"choices":[{"delta":{"reasoning":"hm"}}]}`, want: chunk{output: true, reasoning: true, text: []byte("hm")}},
			{in: `{"choices":[{"delta":{"reasoning_content":"so","content":" yes"}}]}`, want: chunk{output: true, reasoning: true, answer: true, text: []byte("so yes")}},
			{in: `{"choices":[{"delta":{"reasoning_content":""}}]}`},
			{in: `{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":9,"completion_tokens_details":{"reasoning_tokens":7}}}`,
				want: chunk{hasUsage: true, promptTokens: 1, completionTokens: 9, reasoningTokens: 7}},
			{in: `{"choices":[{"delta":{"tool_calls":[]}}]}`},
			{in: `{"choices":[{"delta":{"content":"."},"finish_reason":"length"}]}`, want: chunk{output: true, answer: true, text: []byte("."), finish: "length"}},
			{in: `{"choices":[{"delta":{}}]}`},
			{in: `{"choices":[{"text":"not ours"}]}`},
		},
		// The Responses API's named events, as vLLM and OpenAI send them;
		// the name may also come only in the payload's "type".
		APIResponses: {
			{event: "response.created", in: `{"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[],"usage":null}}`},
			{event: "response.output_text.delta", in: `{"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_1","output_index":0,"content_index":0,"delta":" hi","logprobs":[]}`,
				want: chunk{output: true, answer: true, text: []byte(" hi")}},
			{in: `{"type":"response.output_text.delta","delta":" hi"}`, want: chunk{output: true, answer: true, text: []byte(" hi")}},
			{event: "response.output_text.delta", in: `{"delta":""}`},
			{event: "response.reasoning_text.delta", in: `{"type":"response.reasoning_text.delta","item_id":"rs_1","output_index":0,"content_index":0,"delta":"hm"}`,
				want: chunk{output: true, reasoning: true, text: []byte("hm")}},
			{event: "response.reasoning_summary_text.delta", in: `{"type":"response.reasoning_summary_text.delta","delta":"so"}`,
				want: chunk{output: true, reasoning: true, text: []byte("so")}},
			{event: "response.reasoning.delta", in: `{"type":"response.reasoning.delta","delta":{"content":"We"}}`,
				want: chunk{output: true, reasoning: true, text: []byte("We")}},
			{event: "response.function_call_arguments.delta", in: `{"type":"response.function_call_arguments.delta","delta":"{\"a\""}`,
				want: chunk{output: true, answer: true, text: []byte(`{"a"`)}},
			{event: "response.output_text.done", in: `{"type":"response.output_text.done","text":"the whole text"}`},
			{event: "response.completed", in: `{"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens":34,"output_tokens_details":{"reasoning_tokens":20},"total_tokens":46}}}`,
				want: chunk{finish: "stop", hasUsage: true, promptTokens: 12, completionTokens: 34, reasoningTokens: 20, done: true}},
			{event: "response.incomplete", in: `{"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":1,"output_tokens":3}}}`,
				want: chunk{finish: "length", hasUsage: true, promptTokens: 1, completionTokens: 3, done: true}},
			{event: "response.incomplete", in: `{"response":{"incomplete_details":{"reason":"content_filter"}}}`, want: chunk{finish: "content_filter", done: true}},
			{event: "response.failed", in: `{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"out of memory"}}}`,
				want: chunk{errMsg: "server error: out of memory"}},
			{event: "response.failed", in: `{"response":{"error":null}}`, want: chunk{errMsg: "server error: response failed"}},
			{event: "error", in: `{"type":"error","code":"bad","message":"bad input","param":null}`, want: chunk{errMsg: "server error: bad input"}},
			{in: `{"choices":[{"delta":{"content":"not ours"}}]}`},
			{in: `[DONE]`, want: chunk{done: true}},
			{in: `[1,2]`, err: true},
			{in: `{"type":"response.output_text.delta"`, err: true},
			{in: ``, err: true},
		},
		// Anthropic's Messages events, as its streaming documentation
		// shows them; the name may also come only in the payload's "type".
		APIMessages: {
			{event: "message_start", in: `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-x","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`,
				want: chunk{model: "claude-x", promptTokens: 25}},
			{event: "message_start", in: `{"type":"message_start","message":{"model":"m","usage":{"input_tokens":4,"cache_creation_input_tokens":6,"cache_read_input_tokens":90,"output_tokens":1}}}`,
				want: chunk{model: "m", promptTokens: 100, engine: engineNumbers{cached: 90, hasCached: true}}},
			{event: "content_block_start", in: `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			{event: "ping", in: `{"type":"ping"}`, want: chunk{keepAlive: true}},
			{event: "content_block_delta", in: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
				want: chunk{output: true, answer: true, text: []byte("Hello")}},
			{in: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"!"}}`, want: chunk{output: true, answer: true, text: []byte("!")}},
			{event: "content_block_delta", in: `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":""}}`},
			{event: "content_block_start", in: `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`},
			{event: "content_block_delta", in: `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}}`,
				want: chunk{output: true, reasoning: true, text: []byte("Let me")}},
			{event: "content_block_delta", in: `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM"}}`},
			// Tool use is read in TestMessagesToolUse.
			{event: "content_block_delta", in: `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`},
			{event: "content_block_start", in: `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","input":{}}}`},
			{event: "content_block_delta", in: `{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}`},
			{event: "content_block_stop", in: `{"type":"content_block_stop","index":0}`},
			{event: "message_delta", in: `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`,
				want: chunk{finish: "stop", hasUsage: true, completionTokens: 15}},
			{event: "message_delta", in: `{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"input_tokens":3,"cache_read_input_tokens":0,"output_tokens":8}}`,
				want: chunk{finish: "length", hasUsage: true, completionTokens: 8, promptTokens: 3, engine: engineNumbers{hasCached: true}}},
			{event: "message_delta", in: `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":47}}`,
				want: chunk{finish: "tool_calls", hasUsage: true, completionTokens: 47}},
			{event: "message_delta", in: `{"type":"message_delta","delta":{"stop_reason":"stop_sequence"}}`, want: chunk{finish: "stop"}},
			{event: "message_delta", in: `{"type":"message_delta","delta":{"stop_reason":"refusal"},"usage":{}}`, want: chunk{finish: "refusal"}},
			{event: "message_stop", in: `{"type":"message_stop"}`, want: chunk{done: true}},
			{in: `{"type":"message_stop"}`, want: chunk{done: true}},
			{event: "error", in: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
				want: chunk{errMsg: "server error: overloaded_error: Overloaded"}},
			{in: `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`,
				want: chunk{errMsg: "server error: api_error: Internal server error"}},
			{in: `{"choices":[{"delta":{"content":"not ours"}}]}`},
			{in: `{"type":"response.output_text.delta","delta":"not ours"}`},
			{in: `[DONE]`, want: chunk{done: true}},
			{in: `[1,2]`, err: true},
			{in: `{"type":"content_block_delta"`, err: true},
			{in: ``, err: true},
		},
		// An embeddings answer is one JSON body: it ends the request and
		// carries no output.
		APIEmbeddings: {
			{in: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,-0.2]}],"model":"m","usage":{"prompt_tokens":7,"total_tokens":7}}`,
				want: chunk{hasUsage: true, promptTokens: 7, done: true}},
			{in: `{"data":[{"embedding":[]}]}`, want: chunk{done: true}},
			{in: `{"error":{"message":"too long","code":400}}`, want: chunk{errMsg: "server error: too long", done: true}},
			{in: `{"object":"error","message":"bad"}`, want: chunk{errMsg: "server error: bad", done: true}},
			{in: `{"data":[]}`, err: true},
			{in: `{"data":[{"embedding":"AAAA"}]}`, err: true},
			{in: `[1]`, err: true},
			{in: ``, err: true},
		},
	}
	// The protocols whose chunks share the OpenAI choices envelope.
	openAIStyle := map[string]bool{APICompletions: true, APIChat: true}
	for _, api := range APIs() {
		cases, ok := own[api]
		if !ok {
			t.Errorf("protocol %q has no chunk cases here", api)
		}
		p := protocols[api]
		if openAIStyle[api] {
			cases = append(slices.Clone(sharedChunks), cases...)
		}
		for _, tc := range cases {
			for _, keepText := range []bool{true, false} {
				c := chunk{text: []byte("left from the last chunk"), finish: "stop", done: true}
				err := p.Parse([]byte(tc.event), []byte(tc.in), &c, keepText)
				if (err != nil) != tc.err {
					t.Errorf("%s %s: error %v, want error %v", api, tc.in, err, tc.err)
					continue
				}
				if err != nil {
					continue
				}
				want := tc.want
				// The text's length and hash are counted whether or not
				// it is kept.
				want.textBytes = len(tc.want.text)
				want.hash = fnvAdd(0, string(tc.want.text))
				want.evHash = want.hash
				want.nonSpace = strings.TrimSpace(string(tc.want.text)) != ""
				want.badText = !utf8.Valid(tc.want.text) || bytes.ContainsRune(tc.want.text, utf8.RuneError)
				if !keepText {
					want.text = nil
				}
				if len(c.text) == 0 {
					c.text = nil
				}
				if diff := cmp.Diff(want, c, cmp.AllowUnexported(chunk{}, engineNumbers{})); diff != "" {
					t.Errorf("%s %s (keepText %v) (-want +got):\n%s", api, tc.in, keepText, diff)
				}
			}
		}
	}
}

// The registered names, and an unknown one refused with all of them listed.
func TestUnknownAPI(t *testing.T) {
	if diff := cmp.Diff([]string{"anthropic-messages", "openai", "openai-chat", "openai-embeddings", "openai-responses"}, APIs()); diff != "" {
		t.Errorf("APIs() (-want +got):\n%s", diff)
	}
	if p, err := protocolFor(""); err != nil || p != protocols[APICompletions] {
		t.Errorf(`protocolFor(""): %v, %v; want the completions protocol`, p, err)
	}
	const want = `target api "tgi": want "anthropic-messages", "openai", "openai-chat", "openai-embeddings" or "openai-responses"`
	target := Target{BaseURL: "http://127.0.0.1:1", API: "tgi"}
	if _, err := prepare(target, protocolRequests); err == nil || err.Error() != want {
		t.Errorf("prepare: error %v, want %q", err, want)
	}
	if _, err := newClient(target, 1, nil); err == nil || err.Error() != want {
		t.Errorf("newClient: error %v, want %q", err, want)
	}
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, `"a"`},
		{[]string{"a", "b"}, `"a" or "b"`},
		{[]string{"a", "b", "c"}, `"a", "b" or "c"`},
	} {
		if got := oneOf(tc.names); got != tc.want {
			t.Errorf("oneOf(%q) = %s, want %s", tc.names, got, tc.want)
		}
	}
}
