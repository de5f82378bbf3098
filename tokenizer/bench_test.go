package tokenizer

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmload/llmload/internal/testshared"
)

// proseText is the sonnet corpus followed by the ShareGPT prompts.
func proseText(b testing.TB) string {
	sonnet, err := os.ReadFile("../../shared/data/vllm_sonnet.txt")
	if err != nil {
		testshared.Skipf(b, "prose corpus: %v", err)
	}
	var sb strings.Builder
	sb.Write(sonnet)
	for _, conv := range readConversations(b, filepath.Join(sharedShareGPT, "mlenergy_ShareGPT_V3_filtered_500_first_turn.json")) {
		sb.WriteString("\n")
		sb.WriteString(conv[0])
	}
	return sb.String()
}

// codeText is Go source from the standard library.
func codeText(b testing.TB) string {
	data, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		b.Skipf("code corpus: %v", err)
	}
	return string(data)
}

func benchmarkEncode(b *testing.B, text func(testing.TB) string) {
	for _, name := range sharedNames {
		for _, cold := range []bool{false, true} {
			sub := name + "/warm"
			if cold {
				sub = name + "/cold" // the word cache emptied before each run
			}
			b.Run(sub, func(b *testing.B) {
				tok, _ := loadShared(b, name)
				s := text(b)
				b.SetBytes(int64(len(s)))
				tokens := 0
				for b.Loop() {
					if cold {
						b.StopTimer()
						tok.model.mu.Lock()
						clear(tok.model.cache)
						tok.model.mu.Unlock()
						b.StartTimer()
					}
					tokens = len(tok.Encode(s, false))
				}
				b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
			})
		}
	}
}

// BenchmarkEncodeProse encodes English prose (MB/s is text bytes per second).
func BenchmarkEncodeProse(b *testing.B) { benchmarkEncode(b, proseText) }

// BenchmarkEncodeCode encodes Go source.
func BenchmarkEncodeCode(b *testing.B) { benchmarkEncode(b, codeText) }

// BenchmarkLoadLlama3 loads the 9 MB Llama-3 tokenizer.json.
func BenchmarkLoadLlama3(b *testing.B) {
	path := filepath.Join(sharedTokenizers, "llama3", "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		testshared.Skipf(b, "%v", err)
	}
	start := cpuTime()
	for b.Loop() {
		if _, err := Load(path); err != nil {
			b.Fatal(err)
		}
	}
	// Wall time suffers on a shared machine; CPU time (all threads, the
	// garbage collector included) says what loading costs.
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// cpuTime is the CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkApproximate runs the approximate tokenizer on the prose.
func BenchmarkApproximate(b *testing.B) {
	s := proseText(b)
	a := Approximate()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		a.Encode(s, false)
	}
}
