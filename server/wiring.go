package server

import (
	"go.uber.org/fx"

	"github.com/tiyin/tiyin/application"
	appconsole "github.com/tiyin/tiyin/application/console"
	"github.com/tiyin/tiyin/ports"
)

// The use cases, one fx module per capability, each taking only the ports it names; the
// application knows nothing of fx.
var appModule = fx.Options(
	fx.Module("loans", fx.Provide(func(in loansIn, cfg application.Config) application.Loans {
		return application.NewLoans(application.LoansDeps{Clock: in.Clock, UoW: in.UoW, Idempotency: in.Idempotency,
			Queue: in.Queue, Applications: in.Applications, Loans: in.Loans, Repayments: in.Repayments, Ledger: in.Ledger,
			Scoring: in.Scoring, CoreBanking: in.CoreBanking, OpsLog: in.OpsLog}, cfg)
	})),
	fx.Module("transfers", fx.Provide(func(in transfersIn) application.Transfers {
		return application.NewTransfers(application.TransfersDeps{Clock: in.Clock, UoW: in.UoW, Idempotency: in.Idempotency,
			Applications: in.Applications, Loans: in.Loans, Ledger: in.Ledger, Transfers: in.Transfers, Processing: in.Processing,
			Cards: in.Cards})
	})),
	fx.Module("repayments", fx.Provide(func(in repaymentsIn) application.Repayments {
		return application.NewRepayments(application.RepaymentsDeps{Clock: in.Clock, UoW: in.UoW, Idempotency: in.Idempotency,
			Loans: in.Loans, Ledger: in.Ledger, Processing: in.Processing, Repayments: in.Repayments})
	})),
	fx.Module("cards", fx.Provide(func(in cardsIn, cfg application.Config) application.Cards {
		return application.NewCards(application.CardsDeps{Clock: in.Clock, UoW: in.UoW, Idempotency: in.Idempotency,
			Processing: in.Processing, Cards: in.Cards, CodeCounts: in.CodeCounts, CardOrders: in.CardOrders, CardIssuer: in.CardIssuer,
			SMS: in.SMS, Sealer: in.Sealer, OpsLog: in.OpsLog}, cfg)
	})),
	fx.Module("partners", fx.Provide(func(in partnersIn) application.Partners {
		return application.NewPartners(application.PartnersDeps{Clock: in.Clock, UoW: in.UoW, Idempotency: in.Idempotency,
			Partners: in.Partners, Events: in.Events, Webhooks: in.Webhooks, Sealer: in.Sealer, OpsLog: in.OpsLog})
	})),
	fx.Module("operations", fx.Provide(func(in operationsIn, cfg application.Config) application.Operations {
		return application.NewOperations(application.OperationsDeps{Clock: in.Clock, UoW: in.UoW, Idempotency: in.Idempotency,
			Events: in.Events, Queue: in.Queue,
			Applications: in.Applications, Loans: in.Loans, Ledger: in.Ledger, Transfers: in.Transfers, CardOrders: in.CardOrders,
			CoreBanking: in.CoreBanking, Processing: in.Processing, Cards: in.Cards, CodeCounts: in.CodeCounts,
			Reconciliation: in.Reconciliation, Books: in.Books, Operators: in.Operators}, cfg)
	})),
	fx.Module("sandbox", fx.Provide(func(in sandboxIn, cfg application.Config) application.Sandbox {
		return application.NewSandbox(application.SandboxDeps{Clock: in.Clock, UoW: in.UoW, Idempotency: in.Idempotency,
			Applications: in.Applications, SandboxClock: in.SandboxClock, SMSOutbox: in.SMSOutbox}, cfg)
	})),
	fx.Module("collections", fx.Provide(func(in collectionsIn, cfg application.Config) application.Collections {
		return application.NewCollections(application.CollectionsDeps{Clock: in.Clock, UoW: in.UoW, Applications: in.Applications,
			Loans: in.Loans, Collections: in.Collections, Events: in.Events, SMS: in.SMS}, cfg.Collections)
	})),
	fx.Module("console", fx.Provide(func(in consoleIn, st storesIn, ops application.Operations,
		cfg application.Config) appconsole.Console {
		return appconsole.NewConsole(appconsole.ConsoleDeps{Clock: in.Clock, UoW: in.UoW, Queue: in.Queue, Sealer: in.Sealer,
			Stores: application.Stores{Applications: st.Applications, Loans: st.Loans, Partners: st.Partners, Ledger: st.Ledger,
				Transfers: st.Transfers, Repayments: st.Repayments, Cards: st.Cards, CardOrders: st.CardOrders, Reconciliation: st.Reconciliation,
				Bulk: st.Bulk, Collections: st.Collections},
			Console: application.ConsoleStores{Operators: in.Operators, SecondFactors: in.SecondFactors, AuditLog: in.AuditLog,
				Proposals: in.Proposals, BackOffice: in.BackOffice}, ReconcileDay: ops.ReconcileDay, Checkpoints: in.Checkpoints}, cfg)
	})),
	fx.Provide(func(in appIn) *application.App {
		return &application.App{Loans: in.Loans, Transfers: in.Transfers, Repayments: in.Repayments, Cards: in.Cards,
			Partners: in.Partners, Operations: in.Operations, Sandbox: in.Sandbox, Collections: in.Collections}
	}),
)

type loansIn struct {
	fx.In
	Clock        ports.Clock
	UoW          ports.UnitOfWork
	Idempotency  ports.IdempotencyStore
	Queue        ports.WorkQueue
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Repayments   ports.RepaymentRepository
	Ledger       ports.LedgerRepository
	Scoring      ports.Scoring
	CoreBanking  ports.CoreBanking
	OpsLog       ports.OpsLog
}

type transfersIn struct {
	fx.In
	Clock        ports.Clock
	UoW          ports.UnitOfWork
	Idempotency  ports.IdempotencyStore
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Ledger       ports.LedgerRepository
	Transfers    ports.TransferRepository
	Processing   ports.Processing
	Cards        ports.CardRepository
}

type repaymentsIn struct {
	fx.In
	Clock       ports.Clock
	UoW         ports.UnitOfWork
	Idempotency ports.IdempotencyStore
	Loans       ports.LoanRepository
	Ledger      ports.LedgerRepository
	Processing  ports.Processing
	Repayments  ports.RepaymentRepository
}

type cardsIn struct {
	fx.In
	Clock       ports.Clock
	UoW         ports.UnitOfWork
	Idempotency ports.IdempotencyStore
	Processing  ports.Processing
	Cards       ports.CardRepository
	CodeCounts  ports.CodeCounter
	CardOrders  ports.CardOrderRepository
	CardIssuer  ports.CardIssuer
	SMS         ports.SMSSender
	Sealer      ports.Sealer
	OpsLog      ports.OpsLog
}

type partnersIn struct {
	fx.In
	Clock       ports.Clock
	UoW         ports.UnitOfWork
	Idempotency ports.IdempotencyStore
	Partners    ports.PartnerRepository
	Events      ports.EventOutbox
	Webhooks    ports.WebhookSender
	Sealer      ports.Sealer
	OpsLog      ports.OpsLog
}

type operationsIn struct {
	fx.In
	Clock        ports.Clock
	UoW          ports.UnitOfWork
	Idempotency  ports.IdempotencyStore
	Events       ports.EventOutbox
	Queue        ports.WorkQueue
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Ledger       ports.LedgerRepository
	Transfers    ports.TransferRepository
	CardOrders   ports.CardOrderRepository
	CoreBanking  ports.CoreBanking
	Processing   ports.Processing
	Cards        application.Cards
	CodeCounts   ports.CodeCounter
	// Reconciliation is the store's.
	Reconciliation ports.ReconciliationRepository
	Books          ports.BooksRepository
	Operators      ports.OperatorRepository
}

type sandboxIn struct {
	fx.In
	Clock        ports.Clock
	UoW          ports.UnitOfWork
	Idempotency  ports.IdempotencyStore
	Applications ports.ApplicationRepository
	// SandboxClock and SMSOutbox are the sandbox's, absent outside it.
	SandboxClock ports.SandboxClock `optional:"true"`
	SMSOutbox    ports.SMSOutbox    `optional:"true"`
}

type consoleIn struct {
	fx.In
	Clock         ports.Clock
	UoW           ports.UnitOfWork
	Queue         ports.WorkQueue
	Sealer        ports.Sealer
	Operators     ports.OperatorRepository
	SecondFactors ports.SecondFactorRepository
	AuditLog      ports.AuditLog
	Proposals     ports.ProposalRepository
	BackOffice    ports.BackOffice
	// Checkpoints sends the audit log's heads out of the database's reach.
	Checkpoints ports.AuditCheckpointSender
}

// storesIn are the aggregates' repositories, which the console reads across.
type storesIn struct {
	fx.In
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Partners     ports.PartnerRepository
	Ledger       ports.LedgerRepository
	Transfers    ports.TransferRepository
	Repayments   ports.RepaymentRepository
	Cards        ports.CardRepository
	CardOrders   ports.CardOrderRepository
	// Reconciliation keeps reconciliation's runs and breaks.
	Reconciliation ports.ReconciliationRepository
	// Bulk keeps the repayments files proposed at once.
	Bulk ports.BulkRepository
	// Collections keeps the collectors' work.
	Collections ports.CollectionsRepository
}

type appIn struct {
	fx.In
	Loans      application.Loans
	Transfers  application.Transfers
	Repayments application.Repayments
	Cards      application.Cards
	Partners   application.Partners
	Operations application.Operations
	Sandbox    application.Sandbox
	// Collections runs the collectors' passes in the background.
	Collections application.Collections
}

// collectionsIn are the ports the collectors' background passes need.
type collectionsIn struct {
	fx.In
	Clock        ports.Clock
	UoW          ports.UnitOfWork
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Collections  ports.CollectionsRepository
	Events       ports.EventOutbox
	SMS          ports.SMSSender
}
