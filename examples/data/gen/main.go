package main

import (
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/llmload/llmload/tokenizer"
)

//go:embed vllm_sonnet.txt
var sonnet string

// Options are the generator's knobs; defaults make the committed file.
type Options struct {
	Entries int
	Seed    uint64
}

// DefaultOptions make examples/data/sharegpt_synthetic.json.
var DefaultOptions = Options{Entries: 500, Seed: 2026}

// Length distributions, log-normal in approximate tokens: exp(mu + sigma*N).
type lognormal struct {
	mu, sigma float64
	min, max  int
}

var (
	firstPrompt = lognormal{3.25, 1.5, 2, 1000}
	laterPrompt = lognormal{3.0, 1.0, 2, 600}
	reply       = lognormal{5.13, 0.8, 8, 1400}
)

// instructions start prompts, as people start their questions.
var instructions = []string{
	"Explain what these lines mean:",
	"Summarize the following in plain English:",
	"Rewrite this passage in modern English:",
	"Continue the poem:",
	"What is the rhyme scheme of the following?",
	"Translate into simple French:",
	"Write a short essay about these lines:",
	"Is this a good opening for a story?",
	"Make this sound more formal:",
	"Give three titles for a text that begins:",
	"Why does the author say",
	"List the images used in:",
}

func main() {
	opts := DefaultOptions
	flag.IntVar(&opts.Entries, "n", opts.Entries, "number of conversations")
	flag.Uint64Var(&opts.Seed, "seed", opts.Seed, "random seed")
	flag.Parse()
	if err := Write(os.Stdout, opts); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

type turn struct {
	From  string `json:"from"`
	Value string `json:"value"`
}

type entry struct {
	ID            string `json:"id"`
	Conversations []turn `json:"conversations"`
}

// Write writes the sample as a JSON array, one conversation per line.
func Write(w io.Writer, opts Options) error {
	g := newGenerator(opts.Seed)
	if _, err := io.WriteString(w, "[\n"); err != nil {
		return err
	}
	for i := range opts.Entries {
		line, err := json.Marshal(g.entry(i))
		if err != nil {
			return err
		}
		sep := ",\n"
		if i == opts.Entries-1 {
			sep = "\n"
		}
		if _, err := fmt.Fprintf(w, "%s%s", line, sep); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "]\n")
	return err
}

type generator struct {
	r     *rand.Rand
	words []string
	cost  []int // approximate tokens of " "+word
}

func newGenerator(seed uint64) *generator {
	g := &generator{r: rand.New(rand.NewPCG(seed, 0x5eed))}
	tok := tokenizer.Approximate()
	for _, w := range strings.Fields(sonnet) {
		g.words = append(g.words, w)
		g.cost = append(g.cost, len(tok.Encode(" "+w, false)))
	}
	return g
}

func (g *generator) entry(i int) entry {
	e := entry{ID: fmt.Sprintf("synth%04d_0", i)}
	// One exchange in most conversations, up to three; 2% are a lone
	// human turn, as in the real dump.
	exchanges := 1
	switch u := g.r.Float64(); {
	case u < 0.02:
		exchanges = 0
	case u < 0.70:
		exchanges = 1
	case u < 0.90:
		exchanges = 2
	default:
		exchanges = 3
	}
	e.Conversations = append(e.Conversations, turn{"human", g.prompt(g.length(firstPrompt))})
	for k := range exchanges {
		if k > 0 {
			e.Conversations = append(e.Conversations, turn{"human", g.prompt(g.length(laterPrompt))})
		}
		e.Conversations = append(e.Conversations, turn{"gpt", g.text(g.length(reply), true)})
	}
	return e
}

func (g *generator) length(d lognormal) int {
	n := int(math.Round(math.Exp(d.mu + d.sigma*g.r.NormFloat64())))
	return min(max(n, d.min), d.max)
}

// prompt is an instruction followed by a passage, about n tokens in all.
func (g *generator) prompt(n int) string {
	ins := instructions[g.r.IntN(len(instructions))]
	rest := n - len(strings.Fields(ins)) - 1
	if rest < 1 {
		return g.text(n, false)
	}
	return ins + "\n\n" + g.text(rest, false)
}

// text is a run of the corpus from a random word, about n tokens long;
// replies are cut into paragraphs.
func (g *generator) text(n int, paragraphs bool) string {
	var b strings.Builder
	i := g.r.IntN(len(g.words))
	inParagraph := 0
	for tokens := 0; tokens < n; i = (i + 1) % len(g.words) {
		switch {
		case b.Len() == 0:
		case paragraphs && inParagraph >= 40 && strings.HasSuffix(b.String(), "."):
			b.WriteString("\n\n")
			inParagraph = 0
		default:
			b.WriteByte(' ')
		}
		b.WriteString(g.words[i])
		tokens += g.cost[i]
		inParagraph++
	}
	return b.String()
}
