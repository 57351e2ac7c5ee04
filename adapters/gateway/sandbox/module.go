package sandbox

import (
	"go.uber.org/fx"

	"github.com/tiyin/tiyin/ports"
)

// Module provides the sandbox gateways bound to their ports.
var Module = fx.Module("sandbox-gateways",
	fx.Provide(
		fx.Annotate(NewScoring, fx.As(new(ports.Scoring))),
		fx.Annotate(NewCoreBanking, fx.As(new(ports.CoreBanking))),
		fx.Annotate(NewProcessing, fx.As(new(ports.Processing))),
		fx.Annotate(NewSMSSender, fx.As(new(ports.SMSSender))),
		fx.Annotate(NewCardIssuer, fx.As(new(ports.CardIssuer))),
		fx.Annotate(NewGeneralLedger, fx.As(new(ports.GeneralLedger))),
	),
)
