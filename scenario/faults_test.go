package scenario

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Secrets never reach diagnostics, plan or files: a sensitive variable's
// value from -var or the environment, a URL password from env(), and the
// values of credential headers.
func TestSensitiveValuesStayHidden(t *testing.T) {
	const (
		key    = "sk-planted-KEY-0123456789"
		pass   = "hunter2-URL-PASSWORD"
		token  = "tok-SENSITIVE-VAR-555"
		xauth  = "x-auth-HEADER-VALUE-666"
		tenant = "tenant-CUSTOM-SENSITIVE-777"
	)
	src := `
variable "key" {
  sensitive = true
}
variable "token" {
  type      = string
  sensitive = true
  validation {
    condition     = var.token == "short"
    error_message = "The token is too long."
  }
}
variable "port" {
  type      = number
  sensitive = true
}
target "t" {
  base_url          = env("LEAKY_URL")
  model             = "m"
  api_key           = var.key
  headers           = { "X-Auth" = "` + xauth + `", "X-Tenant" = "` + tenant + `", "X-Trace" = var.token }
  sensitive_headers = ["x-tenant"]
}
dataset "d" {
  random {}
}
scenario "s" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
}
`
	for _, tc := range []struct {
		name string
		vars []string
		env  []string
		want []string // diagnostics' summaries
	}{
		{"failed validation from -var", []string{"key=" + key, "token=" + token, "port=1"},
			[]string{"LEAKY_URL=http://user:" + pass + "@127.0.0.1:99999"},
			[]string{"Invalid value for variable", "Invalid base_url"}},
		{"failed validation from the environment", nil,
			[]string{"LLMLOAD_VAR_key=" + key, "LLMLOAD_VAR_token=" + token, "LLMLOAD_VAR_port=1", "LEAKY_URL=http://user:" + pass + "@127.0.0.1:8000"},
			[]string{"Invalid value for variable"}},
		{"a sensitive number that does not parse", []string{"key=" + key, "token=short", "port=" + token},
			[]string{"LEAKY_URL=http://user:" + pass + "@h:1"},
			[]string{"Invalid value for variable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, diags := load([]source{{name: "s.hcl", src: []byte(src)}}, LoadOptions{Vars: tc.vars, Environ: tc.env})
			var got []string
			for _, d := range diags {
				got = append(got, d.Summary)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, diags)
			}
			var out bytes.Buffer
			if err := cfg.WriteDiagnostics(&out, diags, Verbose); err != nil {
				t.Fatal(err)
			}
			for _, s := range cfg.Scenarios {
				b, _ := json.Marshal(s.Resolved())
				out.Write(b)
			}
			b, _ := json.Marshal(cfg.Variables)
			out.Write(b)
			for _, secret := range []string{key, pass, token, xauth, tenant} {
				if strings.Contains(out.String(), secret) {
					t.Errorf("%q leaks into:\n%s", secret, out.String())
				}
			}
			if !strings.Contains(cfg.Secrets().Scrub(key+" "+token+" "+xauth+" "+tenant+" "+pass), "[REDACTED] [REDACTED] [REDACTED] [REDACTED] [REDACTED]") {
				t.Errorf("Config.Secrets does not know every secret: %v", cfg.Secrets().Secrets())
			}
		})
	}
}

// An environment variable named as a credential is a secret even where
// its value fails to decode: tonumber(env("KEY")) printed the key.
func TestCredentialEnvStaysHidden(t *testing.T) {
	const key = "sk-from-ENV-0123456789"
	src := `
target "t" {
  base_url = "http://127.0.0.1:1"
  model    = "m"
  api_key  = tonumber(env("KEY"))
  headers  = { "X-Trace" = env("HF_TOKEN") }
}
dataset "d" {
  random {}
}
scenario "s" {
  target  = target.t
  dataset = dataset.d
  open_loop {
    rate = 1
  }
}
`
	cfg, diags := load([]source{{name: "s.hcl", src: []byte(src)}}, LoadOptions{Environ: []string{"KEY=" + key, "HF_TOKEN=hf_" + key, "HOME=/home/u",
		"TOKENIZERS_PARALLELISM=false", "GITHUB_TOKEN=ghp_not-read-by-the-config"}})
	if !diags.HasErrors() {
		t.Fatal("tonumber of a key decoded")
	}
	var out bytes.Buffer
	if err := cfg.WriteDiagnostics(&out, diags, Verbose); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), key) || !strings.Contains(out.String(), "cannot convert") {
		t.Errorf("the key leaks, or the diagnostic is gone:\n%s", out.String())
	}
	// Only what env() read, named as a credential, and not a short word:
	// the environment's other values are no secrets of the run's.
	in := "hf_" + key + " /home/u false ghp_not-read-by-the-config"
	if got, want := cfg.Secrets().Scrub(in), "[REDACTED] /home/u false ghp_not-read-by-the-config"; got != want {
		t.Errorf("Secrets scrubs %q to %q; want %q", in, got, want)
	}
}

func TestFaultAttributes(t *testing.T) {
	const head = `
target "t" {
  base_url = "sim://tiny"
}
dataset "d" {
  random {}
}
`
	tests := []struct {
		name, body string
		check      func(t *testing.T, s *Scenario)
		wantDiag   string
	}{
		{name: "defaults", body: `closed_loop {
    users    = 2
    duration = "1s"
  }`, check: func(t *testing.T, s *Scenario) {
			if !s.Preflight || s.ReadyTimeout != 0 || s.AbortOn != nil ||
				s.ClosedLoop.BackoffMin != DefaultBackoffMin || s.ClosedLoop.BackoffMax != DefaultBackoffMax {
				t.Errorf("got preflight %v, ready_timeout %v, abort_on %v, backoff [%v, %v]", s.Preflight, s.ReadyTimeout, s.AbortOn,
					s.ClosedLoop.BackoffMin, s.ClosedLoop.BackoffMax)
			}
		}},
		{name: "set", body: `preflight = true
  ready_timeout = "30s"
  abort_on {
    error_rate   = 0.5
    min_requests = 50
  }
  closed_loop {
    users    = 2
    duration = "1s"
    backoff  = ["1s", "10s"]
  }`, check: func(t *testing.T, s *Scenario) {
			if s.ReadyTimeout != 30*time.Second || s.AbortOn == nil || s.AbortOn.ErrorRate != 0.5 || s.AbortOn.MinRequests != 50 ||
				s.ClosedLoop.BackoffMin != time.Second || s.ClosedLoop.BackoffMax != 10*time.Second {
				t.Errorf("got ready_timeout %v, abort_on %+v, backoff [%v, %v]", s.ReadyTimeout, s.AbortOn, s.ClosedLoop.BackoffMin, s.ClosedLoop.BackoffMax)
			}
		}},
		{name: "off", body: `preflight = false
  abort_on {
    error_rate = 0
  }
  closed_loop {
    users    = 2
    duration = "1s"
    backoff  = "off"
  }`, check: func(t *testing.T, s *Scenario) {
			if s.Preflight || s.AbortOn.MinRequests != DefaultAbortOnMinRequests || s.ClosedLoop.BackoffMax != 0 {
				t.Errorf("got preflight %v, abort_on %+v, backoff max %v", s.Preflight, s.AbortOn, s.ClosedLoop.BackoffMax)
			}
		}},
		{name: "error rate of 1", body: `abort_on {
    error_rate = 1
  }
  open_loop {
    rate = 1
  }`, wantDiag: "Invalid error_rate"},
		{name: "backoff backwards", body: `closed_loop {
    users    = 2
    duration = "1s"
    backoff  = ["5s", "1s"]
  }`, wantDiag: "Invalid backoff"},
		{name: "backoff of one duration", body: `closed_loop {
    users    = 2
    duration = "1s"
    backoff  = "1s"
  }`, wantDiag: "Invalid backoff"},
		{name: "ready_timeout without preflight", body: `preflight     = false
  ready_timeout = "5s"
  open_loop {
    rate = 1
  }`, wantDiag: "Invalid ready_timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + "scenario \"s\" {\n  target  = target.t\n  dataset = dataset.d\n  " + tt.body + "\n}\n"
			cfg, diags := load([]source{{name: "s.hcl", src: []byte(src)}}, LoadOptions{})
			if tt.wantDiag != "" {
				if len(diags) != 1 || diags[0].Summary != tt.wantDiag {
					t.Fatalf("diagnostics %v, want one %q", diags, tt.wantDiag)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			tt.check(t, cfg.Scenarios[0])
		})
	}
}

func TestAbandonBlock(t *testing.T) {
	const head = `
target "t" {
  base_url = "sim://tiny"
}
dataset "d" {
  random {}
}
`
	tests := []struct {
		name, body string
		want       *Abandon
		wantDiag   string
	}{
		{name: "none", body: ``},
		{name: "tokens", body: `abandon {
    share        = 0.1
    after_tokens = [20, 200]
  }`, want: &Abandon{Share: 0.1, AfterTokens: [2]int{20, 200}}},
		{name: "time", body: `abandon {
    share = 1
    after = ["1s", "5s"]
  }`, want: &Abandon{Share: 1, After: [2]time.Duration{time.Second, 5 * time.Second}}},
		{name: "both", body: `abandon {
    share        = 0.1
    after_tokens = [1, 2]
    after        = ["1s", "2s"]
  }`, wantDiag: "Invalid abandon block"},
		{name: "neither", body: `abandon {
    share = 0.1
  }`, wantDiag: "Invalid abandon block"},
		{name: "no share", body: `abandon {
    after_tokens = [1, 2]
  }`, wantDiag: "Missing required argument"},
		{name: "share of 0", body: `abandon {
    share        = 0
    after_tokens = [1, 2]
  }`, wantDiag: "Invalid share"},
		{name: "tokens backwards", body: `abandon {
    share        = 0.5
    after_tokens = [9, 2]
  }`, wantDiag: "Invalid after_tokens"},
		{name: "fractional tokens", body: `abandon {
    share        = 0.5
    after_tokens = [1.5, 2]
  }`, wantDiag: "Invalid after_tokens"},
		{name: "one token count", body: `abandon {
    share        = 0.5
    after_tokens = 3
  }`, wantDiag: "Invalid after_tokens"},
		{name: "time backwards", body: `abandon {
    share = 0.5
    after = ["5s", "1s"]
  }`, wantDiag: "Invalid after"},
		{name: "not a duration", body: `abandon {
    share = 0.5
    after = ["soon", "1s"]
  }`, wantDiag: "Invalid duration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + "scenario \"s\" {\n  target  = target.t\n  dataset = dataset.d\n  open_loop {\n    rate = 1\n  }\n  " + tt.body + "\n}\n"
			cfg, diags := load([]source{{name: "s.hcl", src: []byte(src)}}, LoadOptions{})
			if tt.wantDiag != "" {
				if len(diags) != 1 || diags[0].Summary != tt.wantDiag {
					t.Fatalf("diagnostics %v, want one %q", diags, tt.wantDiag)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if diff := cmp.Diff(tt.want, cfg.Scenarios[0].Abandon, cmpopts.IgnoreFields(Abandon{}, "DeclRange")); diff != "" {
				t.Errorf("abandon (-want +got):\n%s", diff)
			}
		})
	}
}

// A base_url that does not parse gets the parser's diagnostic alone, not a
// second one about the empty value it left.
func TestBadBaseURLExpressionOneDiagnostic(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bad.hcl")
	if err := os.WriteFile(p, []byte("target \"x\" {\n  base_url = \n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := Load([]string{p}, LoadOptions{})
	if len(diags) != 1 || diags[0].Summary != "Invalid expression" {
		t.Errorf("diagnostics %v: want the one syntax error", diags)
	}
}
