package tinymodel

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Token types as llama.cpp's GGUF files number them (gguf-py's TokenType).
const (
	TokenNormal      int32 = 1
	TokenUnknown     int32 = 2
	TokenControl     int32 = 3
	TokenUserDefined int32 = 4
	TokenUnused      int32 = 5
	TokenByte        int32 = 6
)

// Tokenizer is what the GGUF file carries of a byte-level BPE tokenizer:
// the tokens by id (byte-level strings, "Ġhello"), their types, the merges
// ("Ġ t"), and the special token ids.
type Tokenizer struct {
	Tokens []string
	Types  []int32
	Merges []string
	BOS    uint32
	EOS    uint32
	PAD    uint32
	AddBOS bool
}

type hfTokenizer struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Model struct {
		Type   string          `json:"type"`
		Vocab  map[string]int  `json:"vocab"`
		Merges json.RawMessage `json:"merges"`
	} `json:"model"`
}

type hfConfig struct {
	BOS    json.RawMessage `json:"bos_token"`
	EOS    json.RawMessage `json:"eos_token"`
	PAD    json.RawMessage `json:"pad_token"`
	AddBOS *bool           `json:"add_bos_token"`
}

// LoadTokenizer reads a Hugging Face tokenizer folder: tokenizer.json (a
// BPE model: vocabulary, merges, added tokens) and tokenizer_config.json
// (eos_token, pad_token, bos_token, add_bos_token).
//
// Token types follow llama.cpp's converter: vocabulary tokens are normal,
// added tokens are control when marked special or shaped like <|...|>, and
// user-defined otherwise; ids that nothing names are filled with unused
// "[PADn]" tokens. A bos_token of null (as Qwen's) falls back to the pad
// token, which is what Qwen's config.json names as bos_token_id.
func LoadTokenizer(dir string) (*Tokenizer, error) {
	var hf hfTokenizer
	if err := readJSON(filepath.Join(dir, "tokenizer.json"), &hf); err != nil {
		return nil, err
	}
	var cfg hfConfig
	if err := readJSON(filepath.Join(dir, "tokenizer_config.json"), &cfg); err != nil {
		return nil, err
	}
	if hf.Model.Type != "BPE" {
		return nil, fmt.Errorf("%s: model type %q; only byte-level BPE tokenizers are supported", dir, hf.Model.Type)
	}
	n := 0
	for _, id := range hf.Model.Vocab {
		n = max(n, id+1)
	}
	for _, a := range hf.AddedTokens {
		n = max(n, a.ID+1)
	}
	tok := &Tokenizer{Tokens: make([]string, n), Types: make([]int32, n)}
	for s, id := range hf.Model.Vocab {
		if id < 0 {
			return nil, fmt.Errorf("%s: token %q has id %d", dir, s, id)
		}
		if tok.Types[id] != 0 {
			return nil, fmt.Errorf("%s: id %d names both %q and %q", dir, id, tok.Tokens[id], s)
		}
		tok.Tokens[id], tok.Types[id] = s, TokenNormal
	}
	ids := make(map[string]uint32, len(hf.AddedTokens))
	for _, a := range hf.AddedTokens {
		if a.ID < 0 {
			return nil, fmt.Errorf("%s: added token %q has id %d", dir, a.Content, a.ID)
		}
		if tok.Types[a.ID] == TokenNormal && tok.Tokens[a.ID] != a.Content {
			return nil, fmt.Errorf("%s: id %d names both %q and the added token %q", dir, a.ID, tok.Tokens[a.ID], a.Content)
		}
		tok.Tokens[a.ID] = a.Content
		if a.Special || strings.HasPrefix(a.Content, "<|") && strings.HasSuffix(a.Content, "|>") {
			tok.Types[a.ID] = TokenControl
		} else {
			tok.Types[a.ID] = TokenUserDefined
		}
		ids[a.Content] = uint32(a.ID)
	}
	for id := range tok.Tokens {
		if tok.Types[id] == 0 {
			tok.Tokens[id], tok.Types[id] = fmt.Sprintf("[PAD%d]", id), TokenUnused
		}
	}
	merges, err := parseMerges(hf.Model.Merges)
	if err != nil {
		return nil, fmt.Errorf("%s: merges: %w", dir, err)
	}
	tok.Merges = merges

	special := func(field string, raw json.RawMessage) (uint32, bool, error) {
		name, err := tokenName(raw)
		if err != nil || name == "" {
			return 0, false, err
		}
		id, ok := ids[name]
		if !ok {
			if v, in := hf.Model.Vocab[name]; in {
				return uint32(v), true, nil
			}
			return 0, false, fmt.Errorf("%s: %s %q is not a token", dir, field, name)
		}
		return id, true, nil
	}
	var ok bool
	if tok.EOS, ok, err = special("eos_token", cfg.EOS); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%s: tokenizer_config.json names no eos_token", dir)
	}
	if tok.PAD, ok, err = special("pad_token", cfg.PAD); err != nil {
		return nil, err
	} else if !ok {
		tok.PAD = tok.EOS
	}
	if tok.BOS, ok, err = special("bos_token", cfg.BOS); err != nil {
		return nil, err
	} else if !ok {
		tok.BOS = tok.PAD
	}
	tok.AddBOS = cfg.AddBOS != nil && *cfg.AddBOS
	return tok, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// parseMerges accepts both forms tokenizer.json has used: ["a b", ...] and
// [["a", "b"], ...]. GGUF stores the first.
func parseMerges(raw json.RawMessage) ([]string, error) {
	var pairs [][]string
	if err := json.Unmarshal(raw, &pairs); err == nil {
		out := make([]string, len(pairs))
		for i, p := range pairs {
			if len(p) != 2 || strings.Contains(p[0], " ") || strings.Contains(p[1], " ") {
				return nil, fmt.Errorf("merge %d is %q, not a pair of tokens without spaces", i, p)
			}
			out[i] = p[0] + " " + p[1]
		}
		return out, nil
	}
	var flat []string
	if err := json.Unmarshal(raw, &flat); err != nil {
		return nil, fmt.Errorf("neither [\"a b\"] nor [[\"a\", \"b\"]]: %w", err)
	}
	for i, m := range flat {
		if strings.Count(m, " ") != 1 {
			return nil, fmt.Errorf("merge %d is %q, not two tokens separated by a space", i, m)
		}
	}
	return flat, nil
}

// tokenName reads a special token from tokenizer_config.json: null, a
// string, or an object with "content".
func tokenName(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var obj struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return "", fmt.Errorf("a special token is neither a string nor an object with content: %s", raw)
	}
	return obj.Content, nil
}
