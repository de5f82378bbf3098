package executor

import (
	"testing"

	"github.com/llmload/llmload/internal/apis"
)

// Every row of the API table has a protocol here, registered with the
// row's endpoint and streaming, and there is no protocol beyond the table.
func TestProtocolPerAPI(t *testing.T) {
	for _, a := range apis.All() {
		p, err := protocolFor(a.Name)
		if err != nil {
			t.Errorf("%s: no protocol_*.go registers it: %v", a.Name, err)
			continue
		}
		if p.API != a {
			t.Errorf("%s: registered as %+v, the table says %+v", a.Name, p.API, a)
		}
	}
	if got, want := len(protocols), len(apis.All()); got != want {
		t.Errorf("%d protocols for %d APIs", got, want)
	}
	tg := Target{BaseURL: "http://h:1/", API: apis.Chat}
	p, _ := protocolFor(tg.API)
	if got := tg.endpoint(p); got != "http://h:1"+apis.PathChat {
		t.Errorf("endpoint = %q", got)
	}
}
