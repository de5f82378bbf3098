package tokenizer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// A decodeStep is one of Hugging Face's decoders: it rewrites the list of
// token strings (model space: raw bytes for byte-level vocabularies).
type decodeStep func(tokens []string) []string

// parseDecoder builds the decoder steps of a tokenizer.json "decoder".
func parseDecoder(j gjson.Result) ([]decodeStep, error) {
	if !j.Exists() || j.Type == gjson.Null {
		return nil, nil
	}
	switch typ := j.Get("type").String(); typ {
	case "Sequence":
		var steps []decodeStep
		for _, sub := range j.Get("decoders").Array() {
			s, err := parseDecoder(sub)
			if err != nil {
				return nil, err
			}
			steps = append(steps, s...)
		}
		return steps, nil
	case "ByteLevel":
		return []decodeStep{func(tokens []string) []string {
			var b []byte
			for _, t := range tokens {
				b = append(b, t...)
			}
			return []string{lossyUTF8(b)}
		}}, nil
	case "Replace":
		rep, err := parseReplace(j)
		if err != nil {
			return nil, fmt.Errorf("decoder %w", err)
		}
		return []decodeStep{func(tokens []string) []string {
			for i, t := range tokens {
				tokens[i] = rep(t)
			}
			return tokens
		}}, nil
	case "ByteFallback":
		return []decodeStep{byteFallbackDecode}, nil
	case "Fuse":
		return []decodeStep{func(tokens []string) []string { return []string{strings.Join(tokens, "")} }}, nil
	case "Strip":
		content := []rune(j.Get("content").String())
		if len(content) != 1 {
			return nil, fmt.Errorf("decoder Strip: content %q is not one character", j.Get("content").String())
		}
		start, stop := int(j.Get("start").Int()), int(j.Get("stop").Int())
		return []decodeStep{func(tokens []string) []string {
			for i, t := range tokens {
				tokens[i] = stripRune(t, content[0], start, stop)
			}
			return tokens
		}}, nil
	case "Metaspace":
		rep, scheme := metaspaceOptions(j)
		return []decodeStep{func(tokens []string) []string {
			for i, t := range tokens {
				if i == 0 && scheme != "never" {
					tokens[i] = strings.ReplaceAll(t, string(rep), "")
				} else {
					tokens[i] = strings.ReplaceAll(t, string(rep), " ")
				}
			}
			return tokens
		}}, nil
	default:
		return nil, fmt.Errorf("unsupported decoder type %q", typ)
	}
}

// byteFallbackDecode turns runs of <0xXX> tokens into the text they encode
// (one U+FFFD per byte when the run is not valid UTF-8).
func byteFallbackDecode(tokens []string) []string {
	out := tokens[:0:0]
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, t := range tokens {
		if b, ok := byteToken(t); ok {
			pending = append(pending, b)
			continue
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// byteToken parses a byte-fallback token "<0xXX>".
func byteToken(t string) (byte, bool) {
	if len(t) != 6 || !strings.HasPrefix(t, "<0x") || t[5] != '>' {
		return 0, false
	}
	v, err := strconv.ParseUint(t[3:5], 16, 8)
	return byte(v), err == nil
}

// stripRune removes up to start copies of c from the front of t and up to
// stop from the back.
func stripRune(t string, c rune, start, stop int) string {
	for k := 0; k < start && strings.HasPrefix(t, string(c)); k++ {
		t = t[utf8.RuneLen(c):]
	}
	for k := 0; k < stop && strings.HasSuffix(t, string(c)); k++ {
		t = t[:len(t)-utf8.RuneLen(c)]
	}
	return t
}

// metaspaceOptions reads a Metaspace's replacement character and prepend
// scheme (older files say add_prefix_space instead).
func metaspaceOptions(j gjson.Result) (rune, string) {
	rep := '▁'
	if r := []rune(j.Get("replacement").String()); len(r) == 1 {
		rep = r[0]
	}
	scheme := j.Get("prepend_scheme").String()
	if scheme == "" {
		scheme = "always"
		if a := j.Get("add_prefix_space"); a.Exists() && !a.Bool() {
			scheme = "never"
		}
	}
	return rep, scheme
}
