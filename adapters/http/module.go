package http

import (
	"context"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/observe"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/ports"
)

// Module provides the HTTP server.
var Module = fx.Module("http", fx.Provide(newFromFx))

type fxDeps struct {
	fx.In
	App     *application.App
	Clock   ports.Clock
	Log     *zap.Logger
	Ready   ReadyFunc
	Sealer  ports.Sealer
	Metrics *observe.Metrics `optional:"true"`
}

// ReadyFunc reports whether the service can take traffic (/readyz).
type ReadyFunc func(ctx context.Context) error

func newFromFx(d fxDeps, cfg Config) *Server {
	return New(Deps{App: d.App, Clock: d.Clock, Log: d.Log, Ready: d.Ready, Sealer: d.Sealer, Metrics: d.Metrics}, cfg)
}
