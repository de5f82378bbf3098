package main

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/llmload/llmload/engines/tinymodel"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tinymodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := tinymodel.Default()
	dir := fs.String("tokenizer", "", "a tokenizer folder with tokenizer.json and tokenizer_config.json (Qwen3's: ../shared/data/tokenizers/qwen3)")
	out := fs.String("o", "", "the GGUF file to write")
	seed := fs.Uint64("seed", def.Seed, "the seed of the random weights")
	f32 := fs.Bool("f32", false, "write every tensor as F32 (default: 2-D weights F16, about half the size)")
	stop := fs.Bool("stop", false, "make a model that ends every answer with EOS after one word (default: it never emits EOS)")
	pieces := fs.Bool("pieces", false, "make a model that writes any whole piece of text, not only words, so its answers re-tokenize to other counts (default: words that re-tokenize exactly)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dir == "" || *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: tinymodel -tokenizer DIR -o FILE [-seed N] [-f32] [-stop | -pieces]")
		return 2
	}
	start := time.Now()
	tok, err := tinymodel.LoadTokenizer(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "tinymodel:", err)
		return 1
	}
	cfg := def
	cfg.Seed, cfg.F32, cfg.Stop, cfg.Pieces = *seed, *f32, *stop, *pieces
	sum, size, err := write(*out, cfg, tok)
	if err != nil {
		fmt.Fprintln(stderr, "tinymodel:", err)
		return 1
	}
	emits, what := tinymodel.WordTokens(tok), "words"
	if cfg.Pieces {
		emits, what = tinymodel.PieceTokens(tok), "pieces of text"
	}
	words := 0
	for _, w := range emits {
		if w {
			words++
		}
	}
	fmt.Fprintf(stdout, "%s: %d bytes, sha256 %x\n", *out, size, sum)
	stops := ""
	if cfg.Stop {
		stops = fmt.Sprintf(", then EOS (%d %q)", tok.EOS, tok.Tokens[tok.EOS])
	}
	fmt.Fprintf(stdout, "llama, %d layers, width %d, %d heads, FFN %d, context %d, seed %d; %d tokens, %d of them %s the model emits%s; %.1f s\n",
		cfg.Layers, cfg.Width, cfg.Heads, cfg.FFN, cfg.Context, cfg.Seed, len(tok.Tokens), words, what, stops, time.Since(start).Seconds())
	return 0
}

// write writes the model beside path and renames it into place, so that a
// reader never sees half a file; it returns the file's SHA-256 and size.
func write(path string, cfg tinymodel.Config, tok *tinymodel.Tokenizer) ([]byte, int64, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, 0, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(tmp, h), 1<<20)
	err = tinymodel.Write(bw, cfg, tok)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, err
	}
	st, err := os.Stat(tmp.Name())
	if err != nil {
		return nil, 0, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, 0, err
	}
	return h.Sum(nil), st.Size(), nil
}
