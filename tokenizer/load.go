package tokenizer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Load reads a Hugging Face tokenizer.json at path, and the
// tokenizer_config.json beside it if there is one (for bos_token,
// eos_token, add_bos_token and add_eos_token of Llama-style classes).
// Errors name the file and what in it is malformed or unsupported.
func Load(path string) (*HF, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	root, err := parseJSON(path, data)
	if err != nil {
		return nil, err
	}
	t, err := build(root)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	t.name = path
	cfgPath := filepath.Join(filepath.Dir(path), "tokenizer_config.json")
	cfgData, err := os.ReadFile(cfgPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("load tokenizer: %w", err)
	default:
		cfg, err := parseJSON(cfgPath, cfgData)
		if err != nil {
			return nil, err
		}
		if err := t.applyConfig(cfg); err != nil {
			return nil, fmt.Errorf("load tokenizer %s: %w", cfgPath, err)
		}
	}
	return t, nil
}

// parseJSON checks data is JSON (an object) and parses it; a syntax error
// names the file, line and column.
func parseJSON(path string, data []byte) (gjson.Result, error) {
	if !gjson.ValidBytes(data) {
		var raw json.RawMessage
		err := json.Unmarshal(data, &raw)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(data[:se.Offset], []byte("\n"))
			col := int(se.Offset) - bytes.LastIndexByte(data[:se.Offset], '\n') - 1
			return gjson.Result{}, fmt.Errorf("load tokenizer %s: malformed JSON at line %d, column %d (byte %d): %v", path, line, col, se.Offset, se)
		}
		return gjson.Result{}, fmt.Errorf("load tokenizer %s: malformed JSON", path)
	}
	root := gjson.Parse(string(data))
	if !root.IsObject() {
		return gjson.Result{}, fmt.Errorf("load tokenizer %s: not a JSON object", path)
	}
	return root, nil
}

// build assembles a tokenizer from a parsed tokenizer.json.
func build(root gjson.Result) (*HF, error) {
	model := root.Get("model")
	if !model.IsObject() {
		return nil, errors.New(`no "model" object`)
	}
	typ := model.Get("type").String()
	if typ == "" && model.Get("merges").Exists() {
		typ = "BPE"
	}
	if typ != "BPE" {
		return nil, fmt.Errorf("unsupported model type %q (supported: BPE)", typ)
	}
	for _, k := range []string{"continuing_subword_prefix", "end_of_word_suffix"} {
		if v := model.Get(k).String(); v != "" {
			return nil, fmt.Errorf("unsupported BPE option %s = %q", k, v)
		}
	}
	if d := model.Get("dropout"); d.Type == gjson.Number && d.Float() != 0 {
		return nil, fmt.Errorf("unsupported BPE option dropout = %v", d.Float())
	}

	t := &HF{}
	var err error
	byteLevel := false
	t.pre, err = parsePreTokenizer(root.Get("pre_tokenizer"), &byteLevel)
	if err != nil {
		return nil, err
	}
	if t.normalize, err = parseNormalizer(root.Get("normalizer")); err != nil {
		return nil, err
	}
	m := &bpe{
		byteLevel:    byteLevel,
		byteFallback: model.Get("byte_fallback").Bool(),
		ignoreMerges: model.Get("ignore_merges").Bool(),
		fuseUnk:      model.Get("fuse_unk").Bool(),
		unk:          -1,
		cache:        map[string][]int32{},
	}
	t.model = m
	if err := t.readVocab(model.Get("vocab")); err != nil {
		return nil, err
	}
	m.splitMeta = !byteLevel && !m.ignoreMerges && canSplitMeta(m.vocab.toks)
	if err := t.readMerges(model.Get("merges")); err != nil {
		return nil, err
	}
	if u := model.Get("unk_token"); u.Type == gjson.String {
		id, ok := m.vocab.lookup(t.toModel(u.String()))
		if !ok {
			return nil, fmt.Errorf("unk_token %q is not in the vocabulary", u.String())
		}
		m.unk = id
	}
	if err := t.readAdded(root.Get("added_tokens")); err != nil {
		return nil, err
	}
	if t.prefix, t.suffix, err = t.parsePostProcessor(root.Get("post_processor")); err != nil {
		return nil, err
	}
	if t.decoder, err = parseDecoder(root.Get("decoder")); err != nil {
		return nil, err
	}
	return t, nil
}

// toModel maps a vocabulary string to model space (raw bytes for a
// byte-level vocabulary, when it maps).
func (t *HF) toModel(s string) string {
	if !t.model.byteLevel {
		return s
	}
	if b, ok := unByteLevel(nil, s); ok {
		return string(b)
	}
	return s
}

// setToken records id's model-space string, growing the tables.
func (t *HF) setToken(id int, s string) {
	for len(t.tokens) <= id {
		t.tokens = append(t.tokens, "")
		t.known = append(t.known, false)
		t.special = append(t.special, false)
	}
	t.tokens[id] = s
	t.known[id] = true
}

func (t *HF) readVocab(v gjson.Result) error {
	if !v.IsObject() {
		return errors.New(`model "vocab" is not an object`)
	}
	type entry struct {
		tok string
		id  int32
	}
	entries := make([]entry, 0, strings.Count(v.Raw, ",")+1) // commas bound the entries
	var err error
	v.ForEach(func(key, value gjson.Result) bool {
		if value.Type != gjson.Number || value.Int() < 0 || value.Int() > 1<<30 {
			err = fmt.Errorf("vocab entry %q: id %s is not a valid id", key.String(), value.Raw)
			return false
		}
		entries = append(entries, entry{key.String(), int32(value.Int())})
		return true
	})
	if err != nil {
		return err
	}
	m := t.model
	m.vocab = newVocabulary(len(entries))
	m.runeIDs = map[rune]int32{}
	for i := range m.asciiIDs {
		m.asciiIDs[i] = -1
	}
	for i := range m.byteIDs {
		m.byteIDs[i] = -1
	}
	var buf []byte
	for _, e := range entries {
		s := e.tok
		if b, ok := unByteLevel(buf[:0], s); m.byteLevel && ok {
			s, buf = string(b), b
		} else {
			s = strings.Clone(s) // not a substring of the whole file
		}
		if err := m.vocab.add(s, e.id); err != nil {
			return err
		}
		t.setToken(int(e.id), s)
		if m.byteLevel {
			if len(s) == 1 {
				m.byteIDs[s[0]] = e.id
			}
			continue
		}
		if r, n := utf8.DecodeRuneInString(s); n == len(s) && r != utf8.RuneError {
			if r < utf8.RuneSelf {
				m.asciiIDs[r] = e.id
			} else {
				m.runeIDs[r] = e.id
			}
		}
		if b, ok := byteToken(s); ok {
			m.byteIDs[b] = e.id
		}
	}
	if m.byteLevel {
		for b, id := range m.byteIDs {
			if id < 0 {
				return fmt.Errorf("byte-level vocabulary has no token for byte 0x%02X (%q)", b, byteToChar[b])
			}
		}
	}
	return nil
}

func (t *HF) readMerges(v gjson.Result) error {
	if !v.IsArray() {
		return errors.New(`model "merges" is not a list`)
	}
	pairs := make([][2]string, 0, strings.Count(v.Raw, ",")+1)
	var err error
	v.ForEach(func(_, value gjson.Result) bool {
		switch {
		case value.Type == gjson.String:
			left, right, ok := strings.Cut(value.String(), " ")
			if !ok || strings.Contains(right, " ") {
				err = fmt.Errorf("merge %d %q is not two tokens separated by a space", len(pairs), value.String())
				return false
			}
			pairs = append(pairs, [2]string{left, right})
		case value.IsArray() && len(value.Array()) == 2:
			pair := value.Array()
			pairs = append(pairs, [2]string{pair[0].String(), pair[1].String()})
		default:
			err = fmt.Errorf("merge %d %s is neither \"a b\" nor [a, b]", len(pairs), value.Raw)
			return false
		}
		return true
	})
	if err != nil {
		return err
	}
	m := t.model
	m.merges = newTable(len(pairs))
	var a, b, ab []byte
	for rank, p := range pairs {
		if m.byteLevel {
			a, _ = unByteLevel(a[:0], p[0])
			b, _ = unByteLevel(b[:0], p[1])
		} else {
			a, b = append(a[:0], p[0]...), append(b[:0], p[1]...)
		}
		ab = append(append(ab[:0], a...), b...)
		ida, oka := m.vocab.lookupKnown(a)
		idb, okb := m.vocab.lookupKnown(b)
		idab, okab := m.vocab.lookupKnown(ab)
		if !oka || !okb || !okab {
			return fmt.Errorf("merge %d (%q %q): token not in the vocabulary", rank, p[0], p[1])
		}
		m.merges.put(uint64(uint32(ida))<<32|uint64(uint32(idb)), uint64(rank)<<32|uint64(uint32(idab)))
	}
	return nil
}

func (t *HF) readAdded(v gjson.Result) error {
	var raw, normed []addedToken
	var err error
	v.ForEach(func(_, e gjson.Result) bool {
		id := e.Get("id")
		if id.Type != gjson.Number || id.Int() < 0 || id.Int() > 1<<30 {
			err = fmt.Errorf("added token %s has no valid id", e.Raw)
			return false
		}
		a := addedToken{
			content:    e.Get("content").String(),
			id:         int(id.Int()),
			special:    e.Get("special").Bool(),
			lstrip:     e.Get("lstrip").Bool(),
			rstrip:     e.Get("rstrip").Bool(),
			singleWord: e.Get("single_word").Bool(),
			normalized: e.Get("normalized").Bool(),
		}
		t.setToken(a.id, t.toModel(a.content))
		t.special[a.id] = a.special
		if a.normalized && t.normalize != nil {
			a.content = t.normalize(a.content)
			normed = append(normed, a)
		} else {
			raw = append(raw, a)
		}
		return true
	})
	t.rawAdded, t.normAdded = newAddedMatcher(raw), newAddedMatcher(normed)
	return err
}

// tokenID finds a token by its content: added tokens first, then the vocabulary.
func (t *HF) tokenID(s string) (int, bool) {
	for id, tok := range t.tokens {
		if t.known[id] && t.special[id] && tok == t.toModel(s) {
			return id, true
		}
	}
	id, ok := t.model.vocab.lookup(t.toModel(s))
	return int(id), ok
}

// parsePostProcessor returns the ids a post-processor puts around a single
// sequence.
func (t *HF) parsePostProcessor(j gjson.Result) (prefix, suffix []int, err error) {
	if !j.Exists() || j.Type == gjson.Null {
		return nil, nil, nil
	}
	switch typ := j.Get("type").String(); typ {
	case "ByteLevel":
		return nil, nil, nil
	case "Sequence":
		for _, sub := range j.Get("processors").Array() {
			p, s, err := t.parsePostProcessor(sub)
			if err != nil {
				return nil, nil, err
			}
			// Each processor wraps what the ones before it produced.
			prefix, suffix = append(p, prefix...), append(suffix, s...)
		}
		return prefix, suffix, nil
	case "TemplateProcessing":
		seen := false
		for _, item := range j.Get("single").Array() {
			if item.Get("Sequence").Exists() {
				seen = true
				continue
			}
			name := item.Get("SpecialToken.id").String()
			st := j.Get("special_tokens." + gjson.Escape(name))
			if !st.Exists() {
				return nil, nil, fmt.Errorf("post_processor: special token %q of the template is not in special_tokens", name)
			}
			for _, id := range st.Get("ids").Array() {
				if seen {
					suffix = append(suffix, int(id.Int()))
				} else {
					prefix = append(prefix, int(id.Int()))
				}
			}
		}
		return prefix, suffix, nil
	case "BertProcessing", "RobertaProcessing":
		return []int{int(j.Get("cls.1").Int())}, []int{int(j.Get("sep.1").Int())}, nil
	default:
		return nil, nil, fmt.Errorf("unsupported post_processor type %q", typ)
	}
}

// llamaClasses are the transformers classes whose fast tokenizer rebuilds
// the post-processor from add_bos_token and add_eos_token.
var llamaClasses = map[string]bool{
	"LlamaTokenizer": true, "LlamaTokenizerFast": true,
	"CodeLlamaTokenizer": true, "CodeLlamaTokenizerFast": true,
	"GemmaTokenizer": true, "GemmaTokenizerFast": true,
}

// applyConfig applies tokenizer_config.json the way transformers'
// LlamaTokenizerFast does: for those classes, BOS (add_bos_token, default
// true) and EOS (add_eos_token, default false) replace the post-processor's
// special tokens. Other classes (PreTrainedTokenizerFast, Qwen2Tokenizer)
// keep tokenizer.json's post-processor.
func (t *HF) applyConfig(cfg gjson.Result) error {
	if !llamaClasses[cfg.Get("tokenizer_class").String()] {
		return nil
	}
	flag := func(key string, def bool) bool {
		if v := cfg.Get(key); v.Exists() {
			return v.Bool()
		}
		return def
	}
	token := func(key string) (int, bool, error) {
		v := cfg.Get(key)
		if v.IsObject() {
			v = v.Get("content")
		}
		if v.Type != gjson.String {
			return 0, false, nil
		}
		id, ok := t.tokenID(v.String())
		if !ok {
			return 0, false, fmt.Errorf("%s %q is not a token of the tokenizer", key, v.String())
		}
		return id, true, nil
	}
	t.prefix, t.suffix = nil, nil
	for _, s := range []struct {
		flag, token string
		def         bool
		dst         *[]int
	}{{"add_bos_token", "bos_token", true, &t.prefix}, {"add_eos_token", "eos_token", false, &t.suffix}} {
		if !flag(s.flag, s.def) {
			continue
		}
		id, ok, err := token(s.token)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s is true but %s is not set", s.flag, s.token)
		}
		*s.dst = []int{id}
	}
	return nil
}

// canSplitMeta reports whether no token has a character other than "▁"
// followed by "▁" (see bpe.splitMeta).
func canSplitMeta(tokens []string) bool {
	for _, tok := range tokens {
		for i := strings.Index(tok, metaspace); i >= 0; {
			if i > 0 && !strings.HasSuffix(tok[:i], metaspace) {
				return false
			}
			n := strings.Index(tok[i+len(metaspace):], metaspace)
			if n < 0 {
				break
			}
			i += len(metaspace) + n
		}
	}
	return true
}
