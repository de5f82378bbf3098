package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmload/llmload/metrics"
)

// TestAnswersBeside reads a baseline's answers from the files beside its
// result: completed requests only, texts from the outputs file, nothing
// (and no error) without a requests file, and a bad line named by file
// and line.
func TestAnswersBeside(t *testing.T) {
	dir := t.TempDir()
	result := filepath.Join(dir, "run.json")
	if book, err := AnswersBeside(result); book != nil || err != nil {
		t.Fatalf("no requests file: %v, %v; want nothing", book, err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("run.requests.jsonl", `{"id":0,"dataset_index":0,"output_events":3,"output_hash":"00000000000000ee","warmup":true}
{"id":1,"dataset_index":0,"output_events":3,"output_hash":"00000000000000aa"}
{"id":2,"dataset_index":1,"output_events":3,"output_hash":"00000000000000bb"}
{"id":3,"dataset_index":2,"output_events":3,"output_hash":"00000000000000cc","error":"http_5xx"}
{"id":4,"dataset_index":3,"output_events":3,"output_hash":"00000000000000dd","arm":"baseline"}

{"id":5,"dataset_index":4,"output_events":0}
`)
	// The warmup's text under prompt 0 is not the paired answer's.
	write("run.outputs.jsonl", `{"id":0,"dataset_index":0,"text":"warm up"}
{"id":1,"dataset_index":0,"text":"a b c"}
`)
	book, err := AnswersBeside(result)
	if err != nil || book == nil {
		t.Fatalf("AnswersBeside: %v, %v", book, err)
	}
	if book.Len() != 2 {
		t.Errorf("%d answers, want 2 (prompts 0 and 1: not a warmup, a failure, the baseline arm's or an empty answer)", book.Len())
	}
	cand := metrics.NewAnswerBook()
	cand.Put(metrics.AnswerKey{Index: 0}, 0xab, "a b d", true) // differs, both texts
	cand.Put(metrics.AnswerKey{Index: 1}, 0xbb, "", false)     // alike
	a := metrics.Agree(book, cand, "run.json", nil)
	// Prompt 0 is scored on the answer's text ("a b c"), not the
	// warmup's; prompt 1, alike without text, only in the exact match.
	if a.Pairs != 2 || a.Exact != 1 || a.Scored != 1 || a.PrefixSum != 0.8 {
		t.Errorf("agreement %+v, want 2 pairs, 1 alike, 1 scored at 4/5 of its text", *a)
	}
	write("run.requests.jsonl", "{\"id\":1,\"dataset_index\":0,\"output_events\":3,\"output_hash\":\"zz\"}\n")
	if _, err := AnswersBeside(result); err == nil || !strings.Contains(err.Error(), "run.requests.jsonl:1") {
		t.Errorf("a bad hash: %v, want the file and line named", err)
	}
}
