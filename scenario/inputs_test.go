package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRefusedInputs: inputs that used to run (and exit 0) are refused by
// validate, at their line: a header no server could receive, extra_body
// overriding what the run measures, a start_at that has passed.
func TestRefusedInputs(t *testing.T) {
	now = func() time.Time { return time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC) }
	t.Cleanup(func() { now = time.Now })
	for _, tc := range []struct {
		name, target, scenario string
		want                   string // "line: detail fragment"; "" decodes
	}{
		{name: "a header name with a space", target: `headers = { "X Bad" = "v" }`, want: `3: "X Bad" is not a valid header name`},
		{name: "a header value with a line break", target: `headers = { "X-Ok" = "a\nInjected: 1" }`, want: `3: the value of "X-Ok" holds a control character`},
		{name: "a valid header", target: `headers = { "X-Tenant" = "t-1" }`},
		{name: "extra_body turns streaming off", target: `extra_body = { stream = false }`, want: `3: extra_body sets "stream"`},
		{name: "extra_body sets the model", target: `extra_body = { model = "other" }`, want: `3: extra_body sets "model"`},
		{name: "extra_body sets the messages", target: `extra_body = { messages = [] }`, want: `3: extra_body sets "messages"`},
		{name: "extra_body removes stream_options", target: `extra_body = { stream_options = null }`, want: `3: extra_body sets "stream_options"`},
		{name: "extra_body sets max_tokens", target: `extra_body = { max_tokens = 4096 }`, want: `3: extra_body sets "max_tokens", which llmload sets itself: each request's max_tokens is its dataset output length`},
		{name: "extra_body asks for several answers", target: `extra_body = { n = 4 }`, want: `3: extra_body sets "n"`},
		{name: "extra_body sets ignore_eos", target: `extra_body = { ignore_eos = true }`, want: `3: extra_body sets "ignore_eos", which llmload sets itself: the target's ignore_eos sets it`},
		{name: "extra_body sets a sampling knob", target: `extra_body = { temperature = 0 }`},
		{name: "extra_body sets min_tokens (a way to force lengths)", target: `extra_body = { min_tokens = 4 }`},
		{name: "start_at has passed", scenario: `start_at = "2026-12-03T09:59:59Z"`, want: `14: start_at 2026-12-03T09:59:59Z has passed`},
		{name: "start_at ahead", scenario: `start_at = "2026-12-03T10:00:30Z"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "target \"t\" {\n  base_url = \"sim://tiny\"\n  " + tc.target + "\n}\n" +
				"dataset \"d\" {\n  random {\n    input_len = 8\n    output_len = 4\n    num_prompts = 4\n  }\n}\n" +
				"scenario \"s\" {\n  target = target.t\n  " + tc.scenario + "\n  dataset = dataset.d\n  requests = 4\n  open_loop {\n    rate = 10\n  }\n}\n"
			path := filepath.Join(t.TempDir(), "s.hcl")
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, diags := Load([]string{path}, LoadOptions{})
			got := ""
			for _, d := range diags.Errs() {
				if d, ok := d.(interface{ Error() string }); ok {
					got += d.Error() + "\n"
				}
			}
			if tc.want == "" {
				if diags.HasErrors() {
					t.Fatalf("refused:\n%s", got)
				}
				return
			}
			line, frag, _ := strings.Cut(tc.want, ": ")
			if !strings.Contains(got, "s.hcl:"+line+",") || !strings.Contains(got, frag) {
				t.Errorf("got:\n%s\nwant line %s and %q", got, line, frag)
			}
		})
	}
}
