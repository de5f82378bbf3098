package tinymodel

import (
	"fmt"
	"math"
	"testing"

	"github.com/llmload/llmload/engines/gguf"
	"github.com/llmload/llmload/internal/testshared"
)

// TestStopLogits runs the stop model built from Qwen3's tokenizer on one
// token at a time: after a word (every 250th of them), EOS must lead the
// best word by far more than any sampler lets through; after a token that
// is not a word, EOS's logit must be exactly 0, as in the default model
// (some 35 below the best word). The engines, with context and sampling,
// are the conformance suite's (TestLlamaServer/ignore_eos).
func TestStopLogits(t *testing.T) {
	tok, err := LoadTokenizer(testshared.Path(t, "data", "tokenizers", "qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	c := Default()
	c.Stop = true
	f, _, _ := readBack(t, c, tok)
	m := newOneToken(t, c, f)
	words := WordTokens(tok)
	var ids []int
	for id, w := range words {
		if w {
			ids = append(ids, id)
		}
	}
	best := func(x []float32) float64 {
		b := math.Inf(-1)
		for _, id := range ids {
			b = math.Max(b, m.logit(x, id))
		}
		return b
	}
	lead, n := math.Inf(1), 0
	for k := 0; k < len(ids); k += 250 {
		x := m.hidden(ids[k])
		l := m.logit(x, int(tok.EOS)) - best(x)
		if l < 40 {
			t.Errorf("after %q EOS leads the best word by %.1f only", tok.Tokens[ids[k]], l)
		}
		lead, n = math.Min(lead, l), n+1
	}
	for _, id := range []int{198, int(tok.BOS), int(tok.EOS), 151644} { // Ċ (a chat prompt's last token), <|endoftext|>, <|im_end|>, <|im_start|>
		x := m.hidden(id)
		if e, b := m.logit(x, int(tok.EOS)), best(x); e != 0 || b < 10 {
			t.Errorf("after %q: EOS %g, best word %.1f; want EOS 0, far behind", tok.Tokens[id], e, b)
		}
	}
	t.Logf("after %d word tokens EOS leads the best word by %.1f at least", n, lead)
}

// oneToken is the model, read back from its GGUF file, run on a sequence
// of one token as llama.cpp's graph runs it (attention over one position
// is that position's value, so RoPE and the softmax drop out): hidden
// gives the final normalised state x, logit its product with a row of
// output.weight.
type oneToken struct {
	c   Config
	t   map[string][]float32
	dim map[string][]uint64
}

func newOneToken(t *testing.T, c Config, f *gguf.File) *oneToken {
	t.Helper()
	m := &oneToken{c: c, t: map[string][]float32{}, dim: map[string][]uint64{}}
	for _, tn := range f.Tensors {
		vs, err := tn.Floats()
		if err != nil {
			t.Fatal(err)
		}
		m.t[tn.Name], m.dim[tn.Name] = vs, tn.Dims
	}
	return m
}

// mul returns W·v for the matrix name (ggml's dims: in, out).
func (m *oneToken) mul(name string, v []float32) []float32 {
	w, d := m.t[name], m.dim[name]
	in, out := int(d[0]), int(d[1])
	r := make([]float32, out)
	for o := range out {
		var s float64
		for i, x := range v {
			s += float64(w[o*in+i]) * float64(x)
		}
		r[o] = float32(s)
	}
	return r
}

func (m *oneToken) rmsNorm(h []float32) []float32 {
	var ss float64
	for _, v := range h {
		ss += float64(v) * float64(v)
	}
	scale := 1 / math.Sqrt(ss/float64(len(h))+float64(m.c.RMSEpsilon))
	out := make([]float32, len(h))
	for i, v := range h {
		out[i] = float32(float64(v) * scale) // the norms' weights are 1
	}
	return out
}

func (m *oneToken) hidden(id int) []float32 {
	w := m.c.Width
	h := append([]float32(nil), m.t["token_embd.weight"][id*w:(id+1)*w]...)
	add := func(d []float32) {
		for i := range h {
			h[i] += d[i]
		}
	}
	for l := range m.c.Layers {
		p := fmt.Sprintf("blk.%d.", l)
		a := m.rmsNorm(h)
		add(m.mul(p+"attn_output.weight", m.mul(p+"attn_v.weight", a)))
		f := m.rmsNorm(h)
		g, u := m.mul(p+"ffn_gate.weight", f), m.mul(p+"ffn_up.weight", f)
		for i := range g {
			g[i] = g[i] / (1 + float32(math.Exp(-float64(g[i])))) * u[i]
		}
		add(m.mul(p+"ffn_down.weight", g))
	}
	return m.rmsNorm(h)
}

// logit is the product of x with the output row of id.
func (m *oneToken) logit(x []float32, id int) float64 {
	w := m.c.Width
	row := m.t["output.weight"][id*w : (id+1)*w]
	var s float64
	for i, v := range x {
		s += float64(row[i]) * float64(v)
	}
	return s
}
