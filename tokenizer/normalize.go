package tokenizer

import (
	"fmt"
	"strings"

	"github.com/dlclark/regexp2"
	"github.com/tidwall/gjson"
	"golang.org/x/text/unicode/norm"
)

// A normalizer rewrites text before pre-tokenization.
type normalizer func(s string) string

// parseNormalizer builds the normalizer described by a tokenizer.json
// "normalizer" object (nil when there is none).
func parseNormalizer(j gjson.Result) (normalizer, error) {
	if !j.Exists() || j.Type == gjson.Null {
		return nil, nil
	}
	switch typ := j.Get("type").String(); typ {
	case "Sequence":
		var steps []normalizer
		for _, sub := range j.Get("normalizers").Array() {
			n, err := parseNormalizer(sub)
			if err != nil {
				return nil, err
			}
			if n != nil {
				steps = append(steps, n)
			}
		}
		return func(s string) string {
			for _, n := range steps {
				s = n(s)
			}
			return s
		}, nil
	case "NFC":
		return norm.NFC.String, nil
	case "NFD":
		return norm.NFD.String, nil
	case "NFKC":
		return norm.NFKC.String, nil
	case "NFKD":
		return norm.NFKD.String, nil
	case "Lowercase":
		return strings.ToLower, nil
	case "Strip":
		left, right := j.Get("strip_left").Bool(), j.Get("strip_right").Bool()
		return func(s string) string {
			if left {
				s = strings.TrimLeftFunc(s, isWhitespace)
			}
			if right {
				s = strings.TrimRightFunc(s, isWhitespace)
			}
			return s
		}, nil
	case "Prepend":
		p := j.Get("prepend").String()
		return func(s string) string {
			if s == "" {
				return s
			}
			return p + s
		}, nil
	case "Replace":
		return parseReplace(j)
	case "Precompiled":
		if m := j.Get("precompiled_charsmap"); m.Type == gjson.Null || m.String() == "" {
			return nil, nil // no character map: nothing to do
		}
		return nil, fmt.Errorf("unsupported normalizer type %q (with a precompiled_charsmap)", "Precompiled")
	default:
		return nil, fmt.Errorf("unsupported normalizer type %q", typ)
	}
}

// parseReplace builds a Replace normalizer or decoder step: a literal
// {"String": ...} or {"Regex": ...} pattern replaced by "content".
func parseReplace(j gjson.Result) (normalizer, error) {
	content := j.Get("content").String()
	if p := j.Get("pattern.String"); p.Exists() {
		old := p.String()
		return func(s string) string { return strings.ReplaceAll(s, old, content) }, nil
	}
	p := j.Get("pattern.Regex")
	if !p.Exists() {
		return nil, fmt.Errorf("Replace has no String or Regex pattern")
	}
	re, err := regexp2.Compile(p.String(), regexp2.Unicode)
	if err != nil {
		return nil, fmt.Errorf("Replace regex %q: %v", p.String(), err)
	}
	return func(s string) string {
		out, err := re.ReplaceFunc(s, func(regexp2.Match) string { return content }, -1, -1)
		if err != nil {
			return s
		}
		return out
	}, nil
}
