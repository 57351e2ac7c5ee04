package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/console"
	"github.com/tiyin/tiyin/application"
)

// TestTheConsoleAnswersOnlyToItsHostNames (issue 33): the console refuses (421) a request
// whose Host is not one of its names, as a DNS-rebinding page's would be; loopback names and
// TIYIN_ADMIN_HOSTS's are served.
func TestTheConsoleAnswersOnlyToItsHostNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		list, host string
		served     bool
	}{
		{"", "127.0.0.1:9090", true},
		{"", "localhost:9090", true},
		{"", "[::1]:9090", true},
		{"", "LOCALHOST", true},
		{"", "rebind.evil.example:9090", false},
		{"", "10.0.0.5:9090", false},
		{"console.bank.uz, 10.0.0.5", "console.bank.uz", true},
		{"console.bank.uz, 10.0.0.5", "10.0.0.5:9090", true},
		{"console.bank.uz, 10.0.0.5", "127.0.0.1:9090", false},
	} {
		con := console.New(application.Console{}, zap.NewNop(), console.Config{Hosts: adminHosts(tt.list)})
		req := httptest.NewRequest(http.MethodGet, "/console/login", nil)
		req.Host = tt.host
		rec := httptest.NewRecorder()
		con.ServeHTTP(rec, req)
		if served := rec.Code != http.StatusMisdirectedRequest; served != tt.served {
			t.Errorf("TIYIN_ADMIN_HOSTS=%q, Host %s: %d, want served %t", tt.list, tt.host, rec.Code, tt.served)
		}
	}
}

// TestAdminWarnings: an admin listener beyond loopback and the profiler are said at start.
func TestAdminWarnings(t *testing.T) {
	t.Parallel()
	if w := adminWarnings(config{AdminAddr: "127.0.0.1:9090"}); len(w) != 0 {
		t.Fatalf("a loopback admin listener warns: %v", w)
	}
	w := adminWarnings(config{AdminAddr: "0.0.0.0:9090", AdminPublic: true, Pprof: true})
	if len(w) != 2 || !strings.Contains(w[0], "beyond this machine") || !strings.Contains(w[1], "TIYIN_PPROF") {
		t.Fatalf("warnings %v", w)
	}
}
