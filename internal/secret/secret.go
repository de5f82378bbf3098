package secret

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Mask replaces a secret in scrubbed text.
const Mask = "[REDACTED]"

// minLen is the shortest secret scrubbed: shorter values ("1", "on") would
// mangle every message they happen to occur in while protecting nothing.
const minLen = 4

// Scrubber removes a fixed set of secret strings from text. The zero value
// (and nil) scrubs only URL passwords.
type Scrubber struct {
	secrets []string // longest first, so that a secret inside another goes with it
}

// New returns a scrubber of the given secrets (empty and very short ones
// are ignored).
func New(secrets ...string) *Scrubber {
	s := &Scrubber{}
	s.Add(secrets...)
	return s
}

// Add adds secrets to scrub, each also in the forms a server or a tool may
// echo it in: JSON-escaped (with and without HTML escaping), URL-escaped
// (query and path), Go- or shell-quoted.
func (s *Scrubber) Add(secrets ...string) {
	add := func(v string) {
		if len(v) >= minLen && !slices.Contains(s.secrets, v) {
			s.secrets = append(s.secrets, v)
		}
	}
	for _, v := range secrets {
		v = strings.TrimSpace(v)
		if len(v) < minLen {
			continue
		}
		forms := []string{v}
		// A bearer header value's token alone must go too.
		if tok, ok := strings.CutPrefix(v, "Bearer "); ok {
			forms = append(forms, tok)
		}
		for _, f := range forms {
			if len(f) < minLen {
				continue
			}
			add(f)
			for _, e := range escapedForms(f) {
				add(e)
			}
		}
	}
	slices.SortStableFunc(s.secrets, func(a, b string) int { return len(b) - len(a) })
}

// escapedForms are the ways v is written when it is escaped: inside a JSON
// string (Go's encoder escapes <, > and & too; others do not), in a URL's
// query or path, inside a Go-quoted string, or single-quoted for a shell.
func escapedForms(v string) []string {
	var out []string
	jsonForm := func(html bool) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		_ = enc.Encode(v)
		q := strings.TrimSpace(b.String())
		return q[1 : len(q)-1]
	}
	quoted := strconv.Quote(v)
	for _, f := range []string{
		jsonForm(true), jsonForm(false),
		url.QueryEscape(v), url.PathEscape(v),
		quoted[1 : len(quoted)-1],
		strings.ReplaceAll(v, "'", `'\''`),
	} {
		if f != v && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// Secrets returns the secrets scrubbed.
func (s *Scrubber) Secrets() []string {
	if s == nil {
		return nil
	}
	return slices.Clone(s.secrets)
}

// Scrub returns text with every secret replaced by Mask and every URL
// password masked.
func (s *Scrubber) Scrub(text string) string {
	if s != nil {
		for _, v := range s.secrets {
			text = strings.ReplaceAll(text, v, Mask)
		}
	}
	return MaskURLPasswords(text)
}

// ScrubClip scrubs text, then cuts it to at most n bytes (with "..." when
// cut). Scrubbing first, so that a cut never leaves part of a secret.
func (s *Scrubber) ScrubClip(text string, n int) string {
	text = s.Scrub(text)
	if len(text) <= n {
		return text
	}
	i := n
	for i > 0 && i < len(text) && text[i]&0xC0 == 0x80 {
		i-- // not inside a UTF-8 sequence
	}
	return text[:i] + "..."
}

// userinfo matches the user:password@ of a URL inside any text.
var userinfo = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@"'<>]*):([^@\s/"'<>]*)@`)

// MaskURLPasswords masks the password of every URL in text
// (scheme://user:xxxxx@host).
func MaskURLPasswords(text string) string {
	if !strings.Contains(text, "://") {
		return text
	}
	return userinfo.ReplaceAllString(text, "$1:xxxxx@")
}

// URLPassword returns the password of a URL, "" when it has none.
func URLPassword(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return ""
	}
	p, _ := u.User.Password()
	return p
}

// Headers that always carry credentials.
var alwaysSensitive = []string{"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key"}

// Words that make any header name sensitive.
var sensitiveWords = []string{"key", "token", "secret", "auth", "password", "cookie"}

// SensitiveHeader reports whether a header's value is a credential: the
// usual authentication headers, any name containing key, token, secret,
// auth, password or cookie, and any name in extra (case-insensitive).
func SensitiveHeader(name string, extra []string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	if slices.Contains(alwaysSensitive, n) {
		return true
	}
	for _, w := range sensitiveWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	for _, e := range extra {
		if strings.EqualFold(strings.TrimSpace(e), n) {
			return true
		}
	}
	return false
}
