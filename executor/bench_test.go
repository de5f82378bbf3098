package executor

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/llmload/llmload/executor/executortest"
)

// benchStream is an SSE stream of n single-token chunks shaped like vLLM's,
// then a usage chunk and [DONE].
func benchStream(n int, chat bool) []byte {
	var b bytes.Buffer
	for i := range n {
		if chat {
			fmt.Fprintf(&b, `data: {"id":"chatcmpl-b5e4e3c1a2f94e1f","object":"chat.completion.chunk","created":1732800000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" tok%d"},"logprobs":null,"finish_reason":null}]}`+"\n\n", i)
		} else {
			fmt.Fprintf(&b, `data: {"id":"cmpl-b5e4e3c1a2f94e1f","object":"text_completion","created":1732800000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":" tok%d","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`+"\n\n", i)
		}
	}
	b.WriteString(`data: {"id":"cmpl-b5e4e3c1a2f94e1f","object":"text_completion","created":1732800000,"model":"m","choices":[],"usage":{"prompt_tokens":10,"total_tokens":1010,"completion_tokens":1000}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkSSEParse is the client's per-event work without the network:
// SSE framing plus the chunk inspection (output, usage, finish reason).
func BenchmarkSSEParse(b *testing.B) {
	const n = 1000
	for _, api := range []string{APICompletions, APIChat} {
		b.Run(api, func(b *testing.B) {
			stream := benchStream(n, api == APIChat)
			rd := bytes.NewReader(stream)
			br := bufio.NewReaderSize(rd, 16<<10)
			sr := newSSEReader(br)
			proto := protocols[api]
			var c chunk
			events := 0
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			for b.Loop() {
				rd.Reset(stream)
				br.Reset(rd)
				for {
					_, data, err := sr.next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					events++
					if string(data) == "[DONE]" {
						continue
					}
					if err := proto.Parse(nil, data, &c, false); err != nil {
						b.Fatal(err)
					}
				}
			}
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(events), "allocs/event")
		})
	}
}

// BenchmarkClientIngest runs the whole client (Run, HTTP, SSE, recorder)
// against a zero-delay server in another process (so that -cpu bounds the
// client alone) that flushes every token on its own: one op is one
// 256-token stream. It reports tokens/s and tokens per CPU-second of the
// client process (user + system time: what one core ingests).
func BenchmarkClientIngest(b *testing.B) {
	const tokens = 256
	srv := startServerProcess(b, serverSpec{Tokens: tokens})
	for _, streams := range []int{1, 16, 64, 256} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			out, err := Run(context.Background(), Plan{
				KeepResults: true,
				Target:      Target{BaseURL: srv.url},
				Requests:    requests(1, tokens),
				Open:        &OpenLoop{Rate: math.Inf(1), MaxConcurrency: streams},
				MaxRequests: b.N,
			})
			if err != nil {
				b.Fatal(err)
			}
			elapsed := b.Elapsed()
			b.StopTimer()
			cpu := cpuTime() - cpu0
			if out.Overall.Completed != b.N {
				b.Fatalf("completed %d of %d: %v", out.Overall.Completed, b.N, out.Overall.Errors)
			}
			n := float64(out.Overall.TotalOutputTokens)
			b.ReportMetric(n/elapsed.Seconds(), "tokens/s")
			b.ReportMetric(n/cpu.Seconds(), "tokens/cpu-s")
		})
	}
}

// BenchmarkClientPaced offers a steady token rate from a server in another
// process (every stream at a 10 ms ITL, 50 tokens; 100 streams offer 10,000
// tokens/s) and reports how long after the server's flush each event was
// stamped, on the machine's wall clock that both processes share: the
// timestamp error at that load. One op is one stream.
func BenchmarkClientPaced(b *testing.B) {
	const tokens, itl = 50, 10 * time.Millisecond
	for _, streams := range []int{100, 300, 500, 1000} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			srv := startServerProcess(b, serverSpec{Tokens: tokens, ITL: itl, Record: true})
			b.ReportAllocs()
			cpu0 := cpuTime()
			out, err := Run(context.Background(), Plan{
				KeepResults: true,
				Target:      Target{BaseURL: srv.url},
				Requests:    requests(1, tokens),
				// Arrivals spread over one stream's length keep about
				// `streams` streams open.
				Open:        &OpenLoop{Rate: float64(streams) / (tokens * itl).Seconds(), Arrival: ArrivalConstant},
				MaxRequests: b.N,
			})
			if err != nil {
				b.Fatal(err)
			}
			elapsed := b.Elapsed()
			b.StopTimer()
			cpu := cpuTime() - cpu0
			if out.Overall.Completed != b.N {
				b.Fatalf("completed %d of %d: %v", out.Overall.Completed, b.N, out.Overall.Errors)
			}
			sends := srv.stop(b)
			var lag []time.Duration
			for _, r := range out.Results {
				at := out.Started.Add(r.Sent + r.TTFT)
				for i, sent := range sends[r.RequestID] {
					if i > 0 {
						at = at.Add(r.ITL[i-1])
					}
					lag = append(lag, time.Duration(at.UnixNano()-sent))
				}
			}
			if len(lag) != out.Overall.TotalOutputTokens {
				b.Fatalf("%d server flushes for %d tokens", len(lag), out.Overall.TotalOutputTokens)
			}
			slices.Sort(lag)
			n := float64(out.Overall.TotalOutputTokens)
			b.ReportMetric(n/elapsed.Seconds(), "tokens/s")
			b.ReportMetric(cpu.Seconds()/elapsed.Seconds(), "client-cores")
			b.ReportMetric(n/cpu.Seconds(), "tokens/cpu-s")
			b.ReportMetric(float64(out.Overall.PeakConcurrency), "peak-streams")
			b.ReportMetric(float64(lag[len(lag)/2].Microseconds()), "stamp-p50-µs")
			b.ReportMetric(float64(lag[len(lag)*99/100].Microseconds()), "stamp-p99-µs")
		})
	}
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serverEnv names the variable that turns the test binary into a fake
// server (see TestMain); its value is a JSON serverSpec.
const serverEnv = "LLMLOAD_EXECUTORTEST_SERVER"

// serverSpec configures a fake server in a child process.
type serverSpec struct {
	Tokens int
	ITL    time.Duration
	Record bool // report when each chunk was flushed, in Unix nanoseconds
}

// serverProcess is a fake server running in a child process.
type serverProcess struct {
	url   string
	stdin io.Closer
	out   *bufio.Reader
	cmd   *exec.Cmd
}

// startServerProcess runs the fake server in a child process (this test
// binary, see TestMain). The child exits when its stdin closes, at the
// latest with this process.
func startServerProcess(b *testing.B, spec serverSpec) *serverProcess {
	js, _ := json.Marshal(spec)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serverEnv+"="+string(js), "GOMAXPROCS=")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &serverProcess{stdin: stdin, out: bufio.NewReader(stdout), cmd: cmd}
	b.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := p.out.ReadString('\n')
	if err != nil {
		b.Fatalf("server process: %v", err)
	}
	p.url = strings.TrimSpace(line)
	return p
}

// stop ends the child and returns its flush times by x-request-id.
func (p *serverProcess) stop(b *testing.B) map[string][]int64 {
	p.stdin.Close()
	var sends map[string][]int64
	if err := json.NewDecoder(p.out).Decode(&sends); err != nil {
		b.Fatalf("server process: reading its flush times: %v", err)
	}
	return sends
}

// serveProcess is the child side of startServerProcess: it prints the URL,
// serves until stdin closes, then prints the flush times as JSON.
func serveProcess(js string) {
	var spec serverSpec
	if err := json.Unmarshal([]byte(js), &spec); err != nil {
		fmt.Fprintln(os.Stderr, "bad server spec:", err)
		os.Exit(2)
	}
	srv := executortest.New(executortest.Config{Tokens: spec.Tokens, ITL: spec.ITL, RecordSends: spec.Record})
	fmt.Println(srv.URL)
	io.Copy(io.Discard, os.Stdin)
	srv.Close()
	sends := map[string][]int64{}
	for id, ts := range srv.AllSends() {
		for _, t := range ts {
			sends[id] = append(sends[id], t.UnixNano())
		}
	}
	json.NewEncoder(os.Stdout).Encode(sends)
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(serverEnv); spec != "" {
		serveProcess(spec)
		return
	}
	os.Exit(m.Run())
}
