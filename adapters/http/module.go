package http

import (
	"context"

	"go.uber.org/fx"
)

// Module provides the HTTP server.
var Module = fx.Module("http", fx.Provide(New))

// ReadyFunc reports whether the service can take traffic (/readyz).
type ReadyFunc func(ctx context.Context) error
