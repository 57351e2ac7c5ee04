package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthcheckAsksWhereServeListens: without --url, healthcheck asks /readyz on
// TIYIN_HTTP_ADDR as serve reads it (its default, :8080, when unset), or, when it is not set, on
// the TIYIN_URL the banner's export line gives a second terminal beside `make run`.
func TestHealthcheckAsksWhereServeListens(t *testing.T) {
	for _, c := range []struct{ name, httpAddr, tiyinURL, want string }{
		{"nothing set: serve's default", "", "", "http://127.0.0.1:8080/readyz"},
		{"TIYIN_HTTP_ADDR", ":8081", "", "http://127.0.0.1:8081/readyz"},
		{"TIYIN_HTTP_ADDR on a host", "10.0.0.5:8082", "", "http://10.0.0.5:8082/readyz"},
		{"the banner's TIYIN_URL", "", "http://localhost:8081", "http://localhost:8081/readyz"},
		{"TIYIN_HTTP_ADDR before TIYIN_URL", ":8083", "http://localhost:8081", "http://127.0.0.1:8083/readyz"},
		{"a TIYIN_URL that is no URL", "", "localhost:8081", "http://127.0.0.1:8080/readyz"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("TIYIN_HTTP_ADDR", c.httpAddr)
			t.Setenv("TIYIN_URL", c.tiyinURL)
			if got := healthTarget(); got != c.want {
				t.Errorf("healthcheck asks %s, want %s", got, c.want)
			}
		})
	}
	ready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
		}
	}))
	defer ready.Close()
	t.Setenv("TIYIN_HTTP_ADDR", "")
	t.Setenv("TIYIN_URL", ready.URL)
	if status, out, errs := runCLI(t, "healthcheck"); status != 0 || !strings.Contains(out, "ready") {
		t.Errorf("healthcheck beside the banner's TIYIN_URL: exit %d\n%s%s", status, out, errs)
	}
}
