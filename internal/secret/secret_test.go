package secret

import (
	"strings"
	"testing"
)

func TestScrub(t *testing.T) {
	s := New("sk-live-0123456789", "Bearer tok-abcdef", "", "ab")
	tests := []struct{ in, want string }{
		{"key sk-live-0123456789 here", "key [REDACTED] here"},
		{"Authorization: Bearer tok-abcdef", "Authorization: [REDACTED]"},
		{"just tok-abcdef", "just [REDACTED]"},
		{"ab stays: too short to be a secret", "ab stays: too short to be a secret"},
		{"dial http://user:hunter22@host:80/v1: refused", "dial http://user:xxxxx@host:80/v1: refused"},
		{`"base_url": "https://u:p%40ss@h/"`, `"base_url": "https://u:xxxxx@h/"`},
		{"no url: a:b@c", "no url: a:b@c"},
	}
	for _, tt := range tests {
		if got := s.Scrub(tt.in); got != tt.want {
			t.Errorf("Scrub(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestScrubClipScrubsFirst cuts after scrubbing: no prefix of the key
// survives a cut that falls inside it.
func TestScrubClipScrubsFirst(t *testing.T) {
	key := "sk-live-0123456789"
	s := New(key)
	text := "HTTP 401: " + key + " was refused"
	for n := 1; n < len(text); n++ {
		got := s.ScrubClip(text, n)
		for i := 4; i <= len(key); i++ {
			if strings.Contains(got, key[:i]) {
				t.Fatalf("ScrubClip(%d) = %q leaks %q", n, got, key[:i])
			}
		}
	}
}

func TestSensitiveHeader(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
		want  bool
	}{
		{"Authorization", nil, true},
		{"proxy-authorization", nil, true},
		{"Cookie", nil, true},
		{"X-Api-Key", nil, true},
		{"X-Auth", nil, true},
		{"X-Session-Token", nil, true},
		{"X-Client-Secret", nil, true},
		{"X-Tenant", nil, false},
		{"X-Tenant", []string{"x-tenant"}, true},
		{"Content-Type", nil, false},
	}
	for _, tt := range tests {
		if got := SensitiveHeader(tt.name, tt.extra); got != tt.want {
			t.Errorf("SensitiveHeader(%q, %v) = %v, want %v", tt.name, tt.extra, got, tt.want)
		}
	}
}

// TestScrubEscapedForms: a key echoed JSON-escaped in an error body (a
// 400 that quotes the request), URL-escaped in a redirect's location, or
// quoted in a log line is scrubbed like the key itself.
func TestScrubEscapedForms(t *testing.T) {
	const key = `sk-"Q"<&>/+ x'y\z`
	s := New(key)
	for name, text := range map[string]string{
		"plain":         "key " + key,
		"JSON":          `{"error":"bad key sk-\"Q\"\u003c\u0026\u003e/+ x'y\\z"}`,
		"JSON, no HTML": `{"error":"bad key sk-\"Q\"<&>/+ x'y\\z"}`,
		"URL query":     "https://h/?k=sk-%22Q%22%3C%26%3E%2F%2B+x%27y%5Cz",
		"URL path":      "https://h/sk-%22Q%22%3C&%3E%2F+%20x%27y%5Cz",
		"Go-quoted":     `msg="sk-\"Q\"<&>/+ x'y\\z"`,
		"shell-quoted":  `curl -H 'sk-"Q"<&>/+ x'\''y\z'`,
		"bearer token":  "Authorization: Bearer " + key,
	} {
		got := s.Scrub(text)
		if !strings.Contains(got, Mask) || strings.Contains(got, "Q") {
			t.Errorf("%s: %q scrubbed to %q", name, text, got)
		}
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, é and 日本":             "plain text, é and 日本",
		"line\nllmload: all checks passed": `line\nllmload: all checks passed`,
		"\x1b[2J\x1b[32mPASS\x1b[0m":       `\x1b[2J\x1b[32mPASS\x1b[0m`,
		"over\rwrite\ttab":                 `over\rwrite\ttab`,
		"bidi \u202egnp.exe":               `bidi \u202egnp.exe`,
		"c1 \u009b31m":                     `c1 \x9b31m`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
