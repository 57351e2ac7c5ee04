package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"slices"
	"strings"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/console"
	"github.com/tiyin/tiyin/adapters/observe"
	appconsole "github.com/tiyin/tiyin/application/console"
)

// adminHandler is the operator's listener: the operator console (/console/), Prometheus
// /metrics, and Go's profiler (net/http/pprof) when TIYIN_PPROF=true. Never on the partners'
// listener. Every route answers only to hosts (TIYIN_ADMIN_HOSTS): a DNS-rebinding page could
// otherwise read traffic figures from /metrics or memory from the profiler, not only drive the
// console.
func adminHandler(metrics *observe.Metrics, con http.Handler, profiler bool, hosts []string) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics.Handler())
	mux.Handle("/console", con)
	mux.Handle("/console/", con)
	mux.Handle("GET /{$}", http.RedirectHandler(console.Prefix, http.StatusFound))
	if profiler {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return onlyHosts(hosts, mux)
}

// onlyHosts answers 421 to a request whose Host header (port aside, any case) is not one of
// hosts, so a page that re-binds its own name to the admin address (DNS rebinding) reaches
// nothing on the listener. Empty hosts answers any.
func onlyHosts(hosts []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(hosts) > 0 && !slices.Contains(hosts, requestHost(r.Host)) {
			http.Error(w, "the admin listener answers only to its configured host names (TIYIN_ADMIN_HOSTS)", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requestHost is a Host header's name as adminHosts writes one: no port, no brackets, lower case.
func requestHost(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.Trim(host, "[]"))
}

// adminOff is the TIYIN_ADMIN_ADDR value that starts no admin listener.
const adminOff = "off"

// checkAdminAddr refuses an admin listener reachable beyond this machine unless
// TIYIN_ADMIN_PUBLIC=true says that is meant (behind the bank's firewall).
func checkAdminAddr(addr string, public bool) error {
	if addr == adminOff || public {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("TIYIN_ADMIN_ADDR=%q: want host:port, such as 127.0.0.1:9090, or %q", addr, adminOff)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("TIYIN_ADMIN_ADDR=%q listens beyond this machine: set TIYIN_ADMIN_PUBLIC=true if that is meant", addr)
}

// adminHosts are the host names the admin listener answers to: the list given, else this
// machine's loopback names. Any other Host header is refused, so a page that re-binds its own
// name to 127.0.0.1 (DNS rebinding) cannot reach the console, /metrics or the profiler from an
// operator's browser.
func adminHosts(list string) []string {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	if list != "" {
		hosts = nil
		for h := range strings.SplitSeq(list, ",") {
			if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
				hosts = append(hosts, strings.Trim(h, "[]"))
			}
		}
	}
	return hosts
}

// adminWarnings are the admin listener's settings an on-call engineer should know are on.
func adminWarnings(cfg config) []string {
	var out []string
	if cfg.AdminPublic && checkAdminAddr(cfg.AdminAddr, false) != nil {
		out = append(out, "the admin listener (the operator console, /metrics) is reachable beyond this machine: "+
			"TIYIN_ADMIN_PUBLIC=true, TIYIN_ADMIN_ADDR="+cfg.AdminAddr+"; keep it behind the bank's firewall")
	}
	if cfg.Pprof {
		out = append(out, "Go's profiler is on (TIYIN_PPROF=true): /debug/pprof/ on the admin listener shows the process's memory")
	}
	return out
}

// startAdmin starts the admin listener unless TIYIN_ADMIN_ADDR is off.
func startAdmin(lc fx.Lifecycle, cfg config, lns listeners, metrics *observe.Metrics, uc appconsole.Console, log *zap.Logger) {
	if lns.admin == nil {
		return
	}
	// A CPU profile or trace runs for its ?seconds=, so no write timeout here.
	for _, w := range adminWarnings(cfg) {
		log.Warn(w)
	}
	con := console.New(uc, log.Named("console"), console.Config{Secure: !cfg.Sandbox, Sandbox: cfg.Sandbox})
	srv := &http.Server{Handler: adminHandler(metrics, con, cfg.Pprof, cfg.AdminHosts), ReadHeaderTimeout: 5 * time.Second}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ln := lns.admin
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("admin listener stopped", zap.Error(err))
				}
			}()
			log.Info("admin listener: /console/ and /metrics", zap.String("addr", ln.Addr().String()), zap.Bool("pprof", cfg.Pprof))
			return nil
		},
		OnStop: func(context.Context) error { return srv.Close() },
	})
}
