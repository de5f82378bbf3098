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
