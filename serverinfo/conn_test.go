package serverinfo

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// The reads share one kept-alive connection, whatever each answered.
func TestReadOneConnection(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(server{paths: map[string]string{"/version": `{"version":"1"}`, "/v1/models": vllmModels}})
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	defer srv.Close()
	c := Read(context.Background(), srv.Client(), srv.URL, Options{})
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for %d reads, want 1", n, len(c.Reads))
	}
}
