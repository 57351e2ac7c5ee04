package store

import (
	"context"

	"go.uber.org/fx"

	"github.com/tiyin/tiyin/ports"
)

// Module provides the database, its repositories bound to their ports, and the unit of work.
var Module = fx.Module("store",
	fx.Provide(
		openWithLifecycle,
		fx.Annotate(NewUnitOfWork, fx.As(new(ports.UnitOfWork)), fx.As(new(ports.IdempotencyStore))),
		fx.Annotate(NewApplicationRepository, fx.As(new(ports.ApplicationRepository))),
		fx.Annotate(NewLoanRepository, fx.As(new(ports.LoanRepository))),
		fx.Annotate(NewPartnerRepository, fx.As(new(ports.PartnerRepository))),
		fx.Annotate(NewLedgerRepository, fx.As(new(ports.LedgerRepository))),
		fx.Annotate(NewTransferRepository, fx.As(new(ports.TransferRepository))),
		fx.Annotate(NewRepaymentRepository, fx.As(new(ports.RepaymentRepository))),
		fx.Annotate(NewCardRepository, fx.As(new(ports.CardRepository))),
		fx.Annotate(NewCardOrderRepository, fx.As(new(ports.CardOrderRepository))),
		fx.Annotate(NewCodeCounter, fx.As(new(ports.CodeCounter))),
		fx.Annotate(NewSMSOutbox, fx.As(new(ports.SMSOutbox))),
		fx.Annotate(NewEventOutbox, fx.As(new(ports.EventOutbox))),
		fx.Annotate(NewOperatorRepository, fx.As(new(ports.OperatorRepository))),
		fx.Annotate(NewSecondFactorRepository, fx.As(new(ports.SecondFactorRepository))),
		fx.Annotate(NewAuditLog, fx.As(new(ports.AuditLog))),
		fx.Annotate(NewProposalRepository, fx.As(new(ports.ProposalRepository))),
		fx.Annotate(NewBackOffice, fx.As(new(ports.BackOffice))),
		fx.Annotate(NewReconciliationRepository, fx.As(new(ports.ReconciliationRepository))),
		fx.Annotate(NewNetworkJournal, fx.As(new(ports.NetworkJournal))),
		fx.Annotate(NewBooksRepository, fx.As(new(ports.BooksRepository))),
		fx.Annotate(NewBooksViews, fx.As(new(ports.BooksViews))),
		fx.Annotate(NewCollectionsRepository, fx.As(new(ports.CollectionsRepository))),
		fx.Annotate(NewBulkRepository, fx.As(new(ports.BulkRepository))),
	),
)

// SandboxClockModule provides the movable, database-backed clock as both clock ports.
var SandboxClockModule = fx.Module("sandbox-clock",
	fx.Provide(
		NewSandboxClock,
		func(c *SandboxClock) ports.Clock { return c },
		func(c *SandboxClock) ports.SandboxClock { return c },
	),
)

func openWithLifecycle(lc fx.Lifecycle, cfg Config) (*DB, error) {
	db, err := Open(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	lc.Append(fx.StopHook(db.Close))
	return db, nil
}
