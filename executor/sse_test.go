package executor

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// event is a parsed SSE event, for comparisons.
type event struct{ Name, Data string }

// parseAll reads every event of in through an sseReader whose buffer holds
// size bytes (16 forces the long-line path on nearly every line).
func parseAll(in []byte, size int) ([]event, error) {
	sr := newSSEReader(bufio.NewReaderSize(bytes.NewReader(in), size))
	var out []event
	for {
		name, data, err := sr.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, event{string(name), string(data)})
	}
}

// referenceSSE is a deliberately naive parser of the same rules: split the
// whole input into lines first, then apply the field rules.
func referenceSSE(in string) []event {
	in = strings.TrimPrefix(in, "\xef\xbb\xbf")
	// CRLF, LF and a bare CR each end a line.
	in = strings.ReplaceAll(strings.ReplaceAll(in, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(in, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []event
	var name, data []string
	flush := func() {
		if data != nil {
			out = append(out, event{strings.Join(name, ""), strings.Join(data, "\n")})
		}
		name, data = nil, nil
	}
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		switch {
		case l == "":
			flush()
		case l[0] == ':':
		default:
			field, value, _ := strings.Cut(l, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "data":
				data = append(data, value)
			case "event":
				name = []string{value}
			}
		}
	}
	flush()
	return out
}

func render(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		d := e.Data
		if len(d) > 100 {
			d = d[:100] + "..."
		}
		fmt.Fprintf(&b, "event=%q len=%d data=%q\n", e.Name, len(e.Data), d)
	}
	return b.String()
}

func TestSSEGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/sse/*.sse")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/sse/*.sse: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseAll(in, 4096)
			if err != nil {
				t.Fatal(err)
			}
			small, err := parseAll(in, 16)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, small); diff != "" {
				t.Errorf("16-byte buffer differs from 4 KiB buffer (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(referenceSSE(string(in)), got); diff != "" {
				t.Errorf("differs from the reference parser (-want +got):\n%s", diff)
			}
			golden := strings.TrimSuffix(f, ".sse") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(render(got)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), render(got)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

func TestSSECases(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []event
	}{
		{"space after colon is optional", "data:a\n\ndata: b\n\n", []event{{"", "a"}, {"", "b"}}},
		{"only one space is removed", "data:  a\n\n", []event{{"", " a"}}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []event{{"", "a"}, {"", "b"}}},
		// A bare CR ends a line too (WHATWG event-stream): valid SSE that
		// failed as malformed_event.
		{"bare CR", "data: a\r\rdata: b\r\r", []event{{"", "a"}, {"", "b"}}},
		{"bare CR, two data lines", "data: a\rdata: b\r\r", []event{{"", "a\nb"}}},
		{"CR, LF and CRLF mixed", "data: a\r\n\rdata: b\n\ndata: c\r\r\n", []event{{"", "a"}, {"", "b"}, {"", "c"}}},
		{"bare CR at the end of the stream", "data: [DONE]\r", []event{{"", "[DONE]"}}},
		{"comments are skipped", ": hi\ndata: a\n: there\n\n", []event{{"", "a"}}},
		{"multi-line data joined with LF", "data: a\ndata: b\n\n", []event{{"", "a\nb"}}},
		{"blank lines without data dispatch nothing", "\n\n\ndata: a\n\n", []event{{"", "a"}}},
		{"event name", "event: error\ndata: x\n\ndata: y\n\n", []event{{"error", "x"}, {"", "y"}}},
		{"name without data is dropped", "event: ping\n\ndata: y\n\n", []event{{"", "y"}}},
		{"empty data field", "data\n\n", []event{{"", ""}}},
		{"pending event at EOF", "data: [DONE]", []event{{"", "[DONE]"}}},
		{"pending event at EOF after LF", "data: [DONE]\n", []event{{"", "[DONE]"}}},
		{"id and retry ignored", "id: 1\nretry: 5\ndata: a\n\n", []event{{"", "a"}}},
		{"long line", "data: " + strings.Repeat("x", 100000) + "\n\n", []event{{"", strings.Repeat("x", 100000)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range []int{16, 64 << 10} {
				got, err := parseAll([]byte(tc.in), size)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("buffer %d (-want +got):\n%s", size, diff)
				}
			}
		})
	}
}

// A read error mid-stream is returned as is, not taken for the end.
func TestSSEReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b"), errReader{io.ErrUnexpectedEOF})
	sr := newSSEReader(bufio.NewReader(r))
	if _, data, err := sr.next(); err != nil || string(data) != "a" {
		t.Fatalf("first event: %q, %v", data, err)
	}
	if _, _, err := sr.next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("second next: got %v, want io.ErrUnexpectedEOF", err)
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

func FuzzSSE(f *testing.F) {
	files, _ := filepath.Glob("testdata/sse/*.sse")
	messages, _ := filepath.Glob("testdata/messages/*.sse")
	for _, file := range append(files, messages...) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := parseAll(in, 16)
		if err != nil {
			t.Fatal(err)
		}
		big, err := parseAll(in, 4096)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(got, big); diff != "" {
			t.Fatalf("buffer sizes disagree (-16 +4096):\n%s", diff)
		}
		if diff := cmp.Diff(referenceSSE(string(in)), got); diff != "" {
			t.Fatalf("differs from the reference parser (-want +got):\n%s", diff)
		}
		var c chunk
		for _, e := range got {
			for _, p := range protocols {
				_ = p.Parse([]byte(e.Name), []byte(e.Data), &c, true) // must not panic
			}
		}
	})
}

// An event or line over MaxEventBytes is an error of its own, returned as
// soon as the bound is crossed (the reader does not gather the rest).
func TestSSEOversized(t *testing.T) {
	big := strings.Repeat("x", MaxEventBytes/2)
	for name, in := range map[string]io.Reader{
		// One line that never ends: the reader must stop reading it.
		"endless line": io.MultiReader(strings.NewReader("data: "), endless{}),
		"data lines":   strings.NewReader("data: " + big + "\ndata: " + big + "\ndata: " + big + "\n\n"),
	} {
		t.Run(name, func(t *testing.T) {
			sr := newSSEReader(bufio.NewReaderSize(in, 4<<10))
			if _, _, err := sr.next(); !errors.Is(err, errOversized) {
				t.Fatalf("got %v, want errOversized", err)
			}
		})
	}
	// Just under the bound is an event.
	sr := newSSEReader(bufio.NewReader(strings.NewReader("data: " + strings.Repeat("y", MaxEventBytes-1) + "\n\n")))
	if _, data, err := sr.next(); err != nil || len(data) != MaxEventBytes-1 {
		t.Fatalf("an event under the bound: %d bytes, %v", len(data), err)
	}
}

// endless is a reader of 'x' without end.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
