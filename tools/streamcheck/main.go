package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"time"
)

type line struct {
	RequestID string    `json:"request_id"`
	Warmup    bool      `json:"warmup"`
	SentAt    time.Time `json:"sent_at"`
	TTFT      *float64  `json:"ttft_ms"`
	ITL       []float64 `json:"itl_ms"`
	Written   *float64  `json:"written_ms"`
	TTFB      *float64  `json:"ttfb_ms"`
	Connect   *float64  `json:"connect_ms"`
	Blocked   *float64  `json:"blocked_ms"`
	NewConn   bool      `json:"new_conn"`
	Error     string    `json:"error"`
	Events    int       `json:"output_events"`
}

type delivery struct {
	ID       string  `json:"id"`
	Received int64   `json:"received_ns"`
	Sends    []int64 `json:"sends_ns"`
}

func main() {
	reqPath := flag.String("requests", "", "the run's <scenario>.requests.jsonl")
	srvPath := flag.String("server", "", "the fake server's -record file")
	cpu := flag.Float64("cpu", 0, "the client's CPU seconds (user + system), for CPU per thousand events")
	rss := flag.Int64("rss", 0, "the client's peak RSS in KB")
	streams := flag.Int("streams", 0, "the streams open at the peak, for memory per stream")
	label := flag.String("label", "", "a name for this run")
	flag.Parse()
	if err := run(*reqPath, *srvPath, *cpu, *rss, *streams, *label); err != nil {
		fmt.Fprintln(os.Stderr, "streamcheck:", err)
		os.Exit(1)
	}
}

func run(reqPath, srvPath string, cpu float64, rss int64, streams int, label string) error {
	srv := map[string]delivery{}
	if err := eachLine(srvPath, func(b []byte) error {
		var d delivery
		if err := json.Unmarshal(b, &d); err != nil {
			return err
		}
		srv[d.ID] = d
		return nil
	}); err != nil {
		return err
	}
	var (
		ttft, ttftSrv, ttftDeliv, fromWritten, stampLag, itl, itlSrv []float64
		tokenLag, gapErr                                             []float64
		connect, blocked, ttfb                                       []float64
		n, failed, newConns, events, matched                         int
	)
	ms := func(ns int64) float64 { return float64(ns) / 1e6 }
	err := eachLine(reqPath, func(b []byte) error {
		var l line
		if err := json.Unmarshal(b, &l); err != nil {
			return err
		}
		if l.Warmup {
			return nil
		}
		n++
		events += l.Events
		if l.Error != "" || l.TTFT == nil {
			failed++
			return nil
		}
		if l.NewConn {
			newConns++
			if l.Connect != nil {
				connect = append(connect, *l.Connect)
			}
		}
		if l.Blocked != nil {
			blocked = append(blocked, *l.Blocked)
		}
		if l.TTFB != nil {
			ttfb = append(ttfb, *l.TTFB)
		}
		ttft = append(ttft, *l.TTFT)
		itl = append(itl, l.ITL...)
		if l.Written != nil {
			fromWritten = append(fromWritten, *l.TTFT-*l.Written)
		}
		d, ok := srv[l.RequestID]
		if !ok || len(d.Sends) == 0 {
			return nil
		}
		matched++
		ttftSrv = append(ttftSrv, ms(d.Sends[0]-d.Received))
		ttftDeliv = append(ttftDeliv, ms(d.Sends[0]-l.SentAt.UnixNano()))
		stampLag = append(stampLag, ms(l.SentAt.UnixNano()-d.Sends[0])+*l.TTFT)
		for i := 1; i < len(d.Sends); i++ {
			itlSrv = append(itlSrv, ms(d.Sends[i]-d.Sends[i-1]))
		}
		// Every token's stamp against its flush, and every gap against
		// the server's, when the client saw as many events as it sent.
		if len(l.ITL) == len(d.Sends)-1 {
			at := ms(l.SentAt.UnixNano()) + *l.TTFT
			for i, f := range d.Sends {
				if i > 0 {
					at += l.ITL[i-1]
					gapErr = append(gapErr, l.ITL[i-1]-ms(d.Sends[i]-d.Sends[i-1]))
				}
				tokenLag = append(tokenLag, at-ms(f))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if matched == 0 {
		return fmt.Errorf("no request of %s is in %s", reqPath, srvPath)
	}
	p := func(v []float64, q float64) float64 {
		if len(v) == 0 {
			return math.NaN()
		}
		slices.Sort(v)
		return v[min(len(v)-1, int(q*float64(len(v))))]
	}
	fmt.Printf("== %s: %d requests, %d failed, %d matched with the server, %d new connections\n", label, n, failed, matched, newConns)
	row := func(name string, client, truth []float64) {
		fmt.Printf("%-34s p50 %9.2f  p99 %9.2f", name, p(client, .5), p(client, .99))
		if truth != nil {
			fmt.Printf("   server p50 %9.2f  p99 %9.2f   error p50 %+7.2f  p99 %+7.2f",
				p(truth, .5), p(truth, .99), p(client, .5)-p(truth, .5), p(client, .99)-p(truth, .99))
		}
		fmt.Println()
	}
	fmt.Println("(ms; error = client - server. \"server's own\": from its handler's start to its first flush, which")
	fmt.Println(" leaves out its accept and request reading; \"delivered\": from the client's send to the server's first")
	fmt.Println(" flush, one wall clock: the TTFT an exact client measures. ITL: gaps between flushes)")
	row("TTFT vs the server's own", ttft, ttftSrv)
	row("TTFT vs delivered", ttft, ttftDeliv)
	row("TTFT from written vs server's own", fromWritten, ttftSrv)
	row("ITL vs flush gaps", itl, itlSrv)
	row("first-token stamp - server flush", stampLag, nil)
	fmt.Printf("%-34s p1 %+8.3f  p50 %+8.3f  p99 %+8.3f  p99.9 %+8.3f\n", "every token's stamp - its flush", p(tokenLag, .01), p(tokenLag, .5), p(tokenLag, .99), p(tokenLag, .999))
	fmt.Printf("%-34s p1 %+8.3f  p50 %+8.3f  p99 %+8.3f  p99.9 %+8.3f\n", "every gap - the server's gap", p(gapErr, .01), p(gapErr, .5), p(gapErr, .99), p(gapErr, .999))
	row("connect (new connections)", connect, nil)
	row("blocked", blocked, nil)
	row("ttfb", ttfb, nil)
	if cpu > 0 {
		fmt.Printf("client CPU %.2f s for %d output events: %.1f ms per thousand events\n", cpu, events, 1000*cpu/float64(events)*1000)
	}
	if rss > 0 {
		fmt.Printf("client peak RSS %d MiB", rss/1024)
		if streams > 0 {
			fmt.Printf(" (%.1f KB per stream at %d streams, runtime and all)", float64(rss)/float64(streams), streams)
		}
		fmt.Println()
	}
	return nil
}

func eachLine(path string, f func([]byte) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if err := f(sc.Bytes()); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return sc.Err()
}
