package application

import (
	"go.uber.org/fx"

	"github.com/tiyin/tiyin/ports"
)

// Module provides the use cases.
var Module = fx.Module("application", fx.Provide(newFromFx))

type fxDeps struct {
	fx.In
	Clock        ports.Clock
	UoW          ports.UnitOfWork
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Partners     ports.PartnerRepository
	Queue        ports.WorkQueue
	Scoring      ports.Scoring
	CoreBanking  ports.CoreBanking
	Ledger       ports.LedgerRepository
	Transfers    ports.TransferRepository
	Processing   ports.Processing
	SandboxClock ports.SandboxClock `optional:"true"`
}

func newFromFx(d fxDeps, cfg Config) *App {
	return New(Deps{Clock: d.Clock, UoW: d.UoW, Applications: d.Applications, Loans: d.Loans,
		Partners: d.Partners, Queue: d.Queue, Scoring: d.Scoring, CoreBanking: d.CoreBanking,
		Ledger: d.Ledger, Transfers: d.Transfers, Processing: d.Processing, SandboxClock: d.SandboxClock}, cfg)
}
