package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
)

// adminHandler serves Go's profiler (net/http/pprof) for an operator chasing a slow or hungry
// node: never on the partners' listener, only on TIYIN_ADMIN_ADDR, which is off by default.
func adminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// startAdmin starts the admin listener when TIYIN_ADMIN_ADDR is set.
func startAdmin(lc fx.Lifecycle, cfg Config, log *zap.Logger) {
	if cfg.AdminAddr == "" {
		return
	}
	// A CPU profile or trace runs for its ?seconds=, so no write timeout here.
	srv := &http.Server{Handler: adminHandler(), ReadHeaderTimeout: 5 * time.Second}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ln, err := net.Listen("tcp", cfg.AdminAddr)
			if err != nil {
				return fmt.Errorf("listen on TIYIN_ADMIN_ADDR %s: %w", cfg.AdminAddr, err)
			}
			go func() {
				if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("admin listener stopped", zap.Error(err))
				}
			}()
			log.Warn("admin listener (profiler) is on: keep it off the partners' network", zap.String("addr", ln.Addr().String()))
			return nil
		},
		OnStop: func(context.Context) error { return srv.Close() },
	})
}
