package application

import "go.uber.org/fx"

// Module provides the use cases.
var Module = fx.Module("application", fx.Provide(New))
