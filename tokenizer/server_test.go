package tokenizer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/internal/secret"
)

// fakeIDs is the fake servers' tokenizer: one id per byte, BOS 1.
func fakeIDs(text string, special bool) []int {
	ids := []int{}
	if special {
		ids = append(ids, 1)
	}
	for i := 0; i < len(text); i++ {
		ids = append(ids, int(text[i]))
	}
	return ids
}

func fakeText(ids []int) string {
	var sb strings.Builder
	for _, id := range ids {
		if id != 1 {
			sb.WriteByte(byte(id))
		}
	}
	return sb.String()
}

// fakeServer answers /tokenize and /detokenize in vLLM's shape or
// llama.cpp's, and records the request bodies.
type fakeServer struct {
	llama    bool
	requests atomic.Int32
	mu       sync.Mutex
	bodies   []map[string]any
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	switch {
	case r.URL.Path == "/tokenize" && f.llama:
		// llama.cpp answers an empty list when "content" is missing.
		content, _ := body["content"].(string)
		special, _ := body["add_special"].(bool)
		json.NewEncoder(w).Encode(map[string]any{"tokens": fakeIDs(content, special)})
	case r.URL.Path == "/tokenize":
		prompt, ok := body["prompt"].(string)
		if !ok {
			http.Error(w, `{"detail":"prompt: field required"}`, http.StatusUnprocessableEntity)
			return
		}
		special, _ := body["add_special_tokens"].(bool)
		ids := fakeIDs(prompt, special)
		json.NewEncoder(w).Encode(map[string]any{"tokens": ids, "count": len(ids), "max_model_len": 4096})
	case r.URL.Path == "/detokenize":
		var ids []int
		for _, v := range body["tokens"].([]any) {
			ids = append(ids, int(v.(float64)))
		}
		key := "prompt"
		if f.llama {
			key = "content"
		}
		json.NewEncoder(w).Encode(map[string]any{key: fakeText(ids)})
	default:
		http.NotFound(w, r)
	}
}

func TestServer(t *testing.T) {
	for _, tc := range []struct {
		name        string
		llama       bool
		wantField   string // in every request after the first
		absentField string
	}{
		{"vllm", false, "prompt", "content"},
		{"llama.cpp", true, "content", "prompt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeServer{llama: tc.llama}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			tok := NewServer(srv.URL+"/", "m", srv.Client())
			if diff := cmp.Diff([]int{1, 'h', 'i'}, tok.Encode("hi", true)); diff != "" {
				t.Errorf("Encode(hi, true) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]int{'y', 'o'}, tok.Encode("yo", false)); diff != "" {
				t.Errorf("Encode(yo, false) (-want +got):\n%s", diff)
			}
			tok.Encode("hi", true) // cached
			if got := fake.requests.Load(); got != 2 {
				t.Errorf("%d requests for 3 Encode calls with one repeated, want 2", got)
			}
			if got := tok.Decode([]int{1, 'o', 'k'}); got != "ok" {
				t.Errorf("Decode = %q, want \"ok\"", got)
			}
			for _, body := range fake.bodies[1:2] {
				if _, ok := body[tc.wantField]; !ok {
					t.Errorf("request %v has no %q", body, tc.wantField)
				}
				if _, ok := body[tc.absentField]; ok {
					t.Errorf("request %v has %q once the shape is known", body, tc.absentField)
				}
			}
			if err := tok.Err(); err != nil {
				t.Errorf("Err() = %v", err)
			}
			if tok.Name() != "server" || !tok.Exact() {
				t.Errorf("Name() = %q, Exact() = %v", tok.Name(), tok.Exact())
			}
		})
	}
}

func TestServerErrors(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls == 1 {
			http.Error(w, "model not loaded", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, `{"tokens": "nope"}`)
	}))
	defer srv.Close()
	tok := NewServer(srv.URL, "", srv.Client())
	if ids := tok.Encode("a", false); ids != nil {
		t.Errorf("Encode on a failing server = %v, want nil", ids)
	}
	tok.Encode("b", false)
	err := tok.Err()
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "model not loaded") {
		t.Errorf("Err() = %v, want the first failure (503, model not loaded)", err)
	}

	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tok = NewServer(closed.URL, "", nil)
	if got := tok.Decode([]int{1}); got != "" || tok.Err() == nil {
		t.Errorf("Decode on a closed server = %q, Err() = %v; want \"\" and an error", got, tok.Err())
	}
}

func TestServerConcurrent(t *testing.T) {
	fake := &fakeServer{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	tok := NewServer(srv.URL, "", srv.Client())
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				text := fmt.Sprintf("text %d", (g+i)%10)
				if diff := cmp.Diff(fakeIDs(text, false), tok.Encode(text, false)); diff != "" {
					t.Errorf("Encode(%q) (-want +got):\n%s", text, diff)
				}
			}
		}()
	}
	wg.Wait()
	if err := tok.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestServerErrorsHideURLPassword(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "nope", http.StatusNotImplemented)
	}))
	defer srv.Close()
	u := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1)
	s := NewServer(u, "m", nil)
	s.Encode("hello", false)
	err := s.Err()
	if err == nil {
		t.Fatal("no error from a server answering 501")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the error shows the URL's password: %v", err)
	}
	if !strings.Contains(err.Error(), "user:xxxxx@") {
		t.Errorf("the error does not name the server: %v", err)
	}
}

// A 401 that echoes the request (as some gateways do) does not put the key
// in the error, even when the echo is longer than the message's cut.
func TestServerErrorsScrubEchoedKey(t *testing.T) {
	const key = "sk-echoed-0123456789abcdef"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, strings.Repeat("x", 1010))
		r.Header.Write(w)
	}))
	defer srv.Close()
	client := &http.Client{Transport: roundTripperFunc(func(r *http.Request) (*http.Response, error) {
		r.Header.Set("Authorization", "Bearer "+key)
		return http.DefaultTransport.RoundTrip(r)
	})}
	s := NewServer(srv.URL, "m", client).WithSecrets(secret.New(key))
	s.Encode("hello", false)
	err := s.Err()
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("err = %v, want the 401", err)
	}
	for i := 6; i <= len(key); i++ {
		if strings.Contains(err.Error(), key[:i]) {
			t.Fatalf("the error leaks %q: %v", key[:i], err)
		}
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A canceled context stops a call that hangs, at once, and every later one.
func TestServerContext(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer func() { close(hang); srv.Close() }()
	ctx, cancel := context.WithCancel(context.Background())
	s := NewServer(srv.URL, "m", nil).WithContext(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	for i := range 100 {
		s.Encode(fmt.Sprint("prompt ", i), false)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("100 calls took %v after the context ended; want them to stop at once", d)
	}
	if err := s.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("Err() = %v, want context.Canceled", err)
	}
}
