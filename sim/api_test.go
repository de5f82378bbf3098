package sim

import (
	"net/http"
	"testing"

	"github.com/llmload/llmload/internal/apis"
)

// The simulator's APIs by name, as the request tests spell them.
var (
	apiCompletions = apiNamed(apis.Completions)
	apiChat        = apiNamed(apis.Chat)
	apiEmbeddings  = apiNamed(apis.Embeddings)
)

// apiNamed is the table row named name.
func apiNamed(name string) api {
	for k, a := range rows {
		if a.Name == name {
			return api(k)
		}
	}
	panic("no API " + name)
}

// Every row of the API table has a front end here and is served at its
// endpoint (a wrong body is the API's 400, not the mux's 404), and there
// is no front end beyond the table.
func TestFrontendPerAPI(t *testing.T) {
	r := startTiny(t, nil)
	for k, a := range rows {
		if api(k).frontend() == nil {
			t.Errorf("%s: no api_*.go registers it", a.Name)
			continue
		}
		if res := post(t, r.URL+a.Path, "not an object"); res.status != http.StatusBadRequest || len(res.body) == 0 {
			t.Errorf("%s: POST %s answered %d %q, want the API's 400", a.Name, a.Path, res.status, res.body)
		}
	}
	if len(frontends) != len(rows) {
		t.Errorf("%d front ends for %d APIs", len(frontends), len(rows))
	}
}
