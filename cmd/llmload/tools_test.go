package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/llmload/llmload/internal/testshared"
)

func TestTokenizeCommand(t *testing.T) {
	const dir = "../../../shared/data/tokenizers"
	if _, err := os.Stat(dir); err != nil {
		testshared.Skipf(t, "tokenizers: %v", err)
	}
	tests := []struct {
		name string
		args []string
		in   string
		want string
	}{
		// Ids from the shared vectors (an independent implementation).
		{"llama3 ids", []string{"-tokenizer", dir + "/llama3/tokenizer.json"}, "TTFT (Time To First Token) #", "[15249,4082,320,1489,2057,5629,9857,8,674]\n"},
		{"count", []string{"--tokenizer", dir + "/llama3/tokenizer.json", "--count"}, "TTFT (Time To First Token) #", "9\n"},
		// Mistral adds BOS with special tokens, as vLLM counts prompts.
		{"special adds BOS", []string{"-tokenizer", dir + "/mistral7b/tokenizer.json", "-special", "-count"}, "Hello world", "3\n"},
		{"empty input", []string{"-tokenizer", dir + "/llama3/tokenizer.json"}, "", "[]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), append([]string{"tokenize"}, tt.args...), strings.NewReader(tt.in), &out, &errOut)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			if diff := cmp.Diff(tt.want, out.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTokenizeErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{}, "Usage: llmload tokenize"},
		{[]string{"-tokenizer", "testdata/no-such-tokenizer.json"}, "no-such-tokenizer.json"},
	}
	for _, tt := range tests {
		code, _, errOut := call(t, context.Background(), append([]string{"tokenize"}, tt.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, tt.want) {
			t.Errorf("tokenize %v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, errOut, exitInvalid, tt.want)
		}
	}
}

func TestDatasetDump(t *testing.T) {
	out := filepath.Join(t.TempDir(), "dump.jsonl")
	code, _, errOut := call(t, context.Background(), "dataset", "dump", "testdata/tiny.hcl", "--dataset", "random", "-o", out)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type line struct {
		Index     int    `json:"index"`
		Prompt    string `json:"prompt"`
		PromptLen int    `json:"prompt_len"`
		OutputLen int    `json:"output_len"`
	}
	var got []line
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d: %v", len(got)+1, err)
		}
		got = append(got, l)
	}
	// tiny.hcl asks for 40 random prompts of 32 tokens and 16 output tokens.
	if len(got) != 40 {
		t.Fatalf("%d lines, want 40", len(got))
	}
	for i, l := range got {
		if l.Index != i || l.PromptLen != 32 || l.OutputLen != 16 || l.Prompt == "" {
			t.Errorf("line %d = %+v; want index %d, prompt_len 32, output_len 16, a prompt", i, l, i)
		}
	}
	// The same configuration samples the same prompts.
	var again bytes.Buffer
	run(context.Background(), []string{"dataset", "dump", "testdata/tiny.hcl"}, strings.NewReader(""), &again, &bytes.Buffer{})
	first, _ := os.ReadFile(out)
	if diff := cmp.Diff(string(first), again.String()); diff != "" {
		t.Errorf("a second dump differs (-file +stdout):\n%s", diff)
	}
}

func TestSimCommand(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	var errOut bytes.Buffer
	go func() {
		done <- run(ctx, []string{"sim", "-listen", addr, "-profile", "tiny", "--max_num_seqs", "8"}, strings.NewReader(""), &bytes.Buffer{}, &errOut)
	}()
	var resp *http.Response
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if resp, err = http.Get("http://" + addr + "/health"); err == nil {
			break
		}
	}
	if err != nil {
		cancel()
		<-done
		t.Fatalf("the simulator never answered /health: %v\n%s", err, errOut.String())
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/health: %s", resp.Status)
	}
	cancel()
	if code := <-done; code != exitInterrupted {
		t.Errorf("exit %d after Ctrl-C, want %d\n%s", code, exitInterrupted, errOut.String())
	}

	// A bad override is a usage error naming the key.
	code, _, stderr := call(t, context.Background(), "sim", "-profile", "tiny", "-max_num_seqs", "lots")
	if code != exitInvalid || !strings.Contains(stderr, "max_num_seqs") {
		t.Errorf("bad override: exit %d, stderr %q", code, stderr)
	}
}
