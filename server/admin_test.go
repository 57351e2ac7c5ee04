package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/console"
	"github.com/tiyin/tiyin/adapters/observe"
	appconsole "github.com/tiyin/tiyin/application/console"
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
		rec := askAdmin(t, tt.list, "/console/login", tt.host)
		if served := rec.Code != http.StatusMisdirectedRequest; served != tt.served {
			t.Errorf("TIYIN_ADMIN_HOSTS=%q, Host %s: %d, want served %t", tt.list, tt.host, rec.Code, tt.served)
		}
	}
}

// TestEveryAdminRouteAnswersOnlyToItsHostNames (issue 46, finding 3): /metrics, the profiler,
// the root redirect and an unknown path refuse a rebound Host with the console's 421, so a
// DNS-rebinding page reads neither traffic figures nor memory; the listener's own names are
// served as before.
func TestEveryAdminRouteAnswersOnlyToItsHostNames(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"/metrics", "/debug/pprof/", "/debug/pprof/cmdline", "/", "/console", "/console/login", "/nowhere"} {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			if rec := askAdmin(t, "", path, "rebind.evil.example:9090"); rec.Code != http.StatusMisdirectedRequest {
				t.Errorf("Host rebind.evil.example: %d, want 421", rec.Code)
			}
			if rec := askAdmin(t, "", path, "127.0.0.1:9090"); rec.Code == http.StatusMisdirectedRequest {
				t.Errorf("Host 127.0.0.1: 421, want served")
			}
		})
	}
	if rec := askAdmin(t, "", "/metrics", "localhost:9090"); rec.Code != http.StatusOK {
		t.Errorf("/metrics on localhost: %d, want 200", rec.Code)
	}
}

// askAdmin sends GET path with Host host to the admin listener's handler (profiler on) under
// TIYIN_ADMIN_HOSTS=list.
func askAdmin(t *testing.T, list, path, host string) *httptest.ResponseRecorder {
	t.Helper()
	con := console.New(appconsole.Console{}, zap.NewNop(), console.Config{})
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = host
	rec := httptest.NewRecorder()
	adminHandler(observe.New(), con, true, adminHosts(list)).ServeHTTP(rec, req)
	return rec
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
