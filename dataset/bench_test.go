package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/llmload/llmload/tokenizer"
)

// BenchmarkShareGPT650MB loads 1000 prompts with the approximate tokenizer
// from a ~650 MB ShareGPT-format file (sharegpt_like_500.json's entries
// repeated) and reports the process's peak RSS. Run it alone:
//
//	go test -run XXX -bench ShareGPT650MB -benchtime 1x ./dataset/
func BenchmarkShareGPT650MB(b *testing.B) {
	sample := readShared(b, filepath.Join(sharedSharegpt, "sharegpt_like_500.json"))
	var entries []json.RawMessage
	if err := json.Unmarshal(sample, &entries); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "sharegpt-650MB.json")
	size := writeRepeated(b, path, entries, 650<<20)
	cfg := DefaultShareGPT()
	cfg.Path = path
	tok := tokenizer.Approximate()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		runtime.GC()
		debug.FreeOSMemory()
		b.StartTimer()
		ds, err := Load(Spec{Name: "bench", ShareGPT: &cfg}, tok)
		if err != nil {
			b.Fatal(err)
		}
		if len(ds.Requests) != cfg.NumPrompts {
			b.Fatalf("%d requests, want %d", len(ds.Requests), cfg.NumPrompts)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(size)/(1<<20), "file-MiB")
	b.ReportMetric(float64(peakRSS(b))/(1<<20), "peak-RSS-MiB")
}

// writeRepeated writes a JSON array of entries, repeated until the file
// holds at least size bytes, and returns the file's size.
func writeRepeated(b *testing.B, path string, entries []json.RawMessage, size int64) int64 {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	written := int64(1)
	w.WriteByte('[')
	for i := 0; written < size; i++ {
		if i > 0 {
			w.WriteByte(',')
			written++
		}
		n, _ := w.Write(entries[i%len(entries)])
		written += int64(n)
	}
	w.WriteByte(']')
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return written + 1
}

// peakRSS reads the process's peak resident set size (VmHWM) in bytes.
func peakRSS(b *testing.B) int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for line := range bytes.Lines(status) {
		if v, ok := strings.CutPrefix(string(line), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatal("no VmHWM in /proc/self/status")
	return 0
}
