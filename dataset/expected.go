package dataset

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/tidwall/gjson"
)

// Expected is a prompt's expected answer, from a JSONL line's "expected"
// field: a string is text the answer must contain; an object sets exactly
// one of equals (the whole answer, white space at its ends aside),
// contains, or regex (RE2, matched anywhere in the answer: anchor it with
// ^ and $ for the whole).
type Expected struct {
	Equals   string `json:"equals,omitempty"`
	Contains string `json:"contains,omitempty"`
	Regex    string `json:"regex,omitempty"`
	re       *regexp.Regexp
}

// Judge says whether answer meets the expectation.
func (e *Expected) Judge(answer string) bool {
	switch {
	case e.re != nil:
		return e.re.MatchString(answer)
	case e.Contains != "":
		return strings.Contains(answer, e.Contains)
	default:
		return strings.TrimSpace(answer) == strings.TrimSpace(e.Equals)
	}
}

// parseExpected reads an "expected" field.
func parseExpected(v gjson.Result) (*Expected, error) {
	if v.Type == gjson.String {
		if v.String() == "" {
			return nil, fmt.Errorf("\"expected\" is empty: every answer contains the empty string")
		}
		return &Expected{Contains: v.String()}, nil
	}
	if !v.IsObject() {
		return nil, fmt.Errorf("\"expected\" is %s: want a string (text the answer contains) or an object with one of equals, contains, regex", kind(v))
	}
	e := &Expected{}
	set := 0
	var bad error
	v.ForEach(func(k, x gjson.Result) bool {
		var dst *string
		switch k.String() {
		case "equals":
			dst = &e.Equals
		case "contains":
			dst = &e.Contains
		case "regex":
			dst = &e.Regex
		default:
			bad = fmt.Errorf("\"expected\" has %q: want one of equals, contains, regex", k.String())
			return false
		}
		if x.Type != gjson.String {
			bad = fmt.Errorf("\"expected\".%s is %s, not a string", k.String(), kind(x))
			return false
		}
		*dst = x.String()
		set++
		return true
	})
	switch {
	case bad != nil:
		return nil, bad
	case set != 1:
		return nil, fmt.Errorf("\"expected\" sets %d of equals, contains, regex: want exactly one", set)
	case v.Get("contains").Exists() && e.Contains == "":
		return nil, fmt.Errorf("\"expected\".contains is empty: every answer contains the empty string")
	}
	if e.Regex != "" || v.Get("regex").Exists() {
		re, err := regexp.Compile(e.Regex)
		if err != nil {
			return nil, fmt.Errorf("\"expected\".regex: %v", err)
		}
		e.re = re
	}
	return e, nil
}
