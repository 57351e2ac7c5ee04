package server

import (
	"go.uber.org/fx"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/ports"
)

// appModule builds the use cases, by capability, from the ports the adapters' modules provide.
// The application knows nothing of fx: the graph's groups below fill its plain Deps.
var appModule = fx.Module("application", fx.Provide(newApp))

// coreIn are the ports every capability shares.
type coreIn struct {
	fx.In

	Clock       ports.Clock
	UoW         ports.UnitOfWork
	Idempotency ports.IdempotencyStore
	Queue       ports.WorkQueue
	Events      ports.EventOutbox
	Sealer      ports.Sealer
	// SMSOutbox and SandboxClock are the sandbox's, absent outside it.
	SMSOutbox    ports.SMSOutbox    `optional:"true"`
	SandboxClock ports.SandboxClock `optional:"true"`
}

// storesIn are the aggregates' repositories.
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
}

// gatewaysIn are the bank's and networks' systems (guarded) and the webhook sender.
type gatewaysIn struct {
	fx.In

	Scoring     ports.Scoring
	CoreBanking ports.CoreBanking
	Processing  ports.Processing
	CardIssuer  ports.CardIssuer
	SMS         ports.SMSSender
	Webhooks    ports.WebhookSender
}

// consoleIn are the operator console's stores.
type consoleIn struct {
	fx.In

	Operators  ports.OperatorRepository
	AuditLog   ports.AuditLog
	Proposals  ports.ProposalRepository
	BackOffice ports.BackOffice
}

func newApp(c coreIn, s storesIn, g gatewaysIn, cs consoleIn, cfg application.Config) *application.App {
	return application.New(application.Deps{
		Clock: c.Clock, UoW: c.UoW, Idempotency: c.Idempotency, Queue: c.Queue, Events: c.Events, Sealer: c.Sealer,
		Stores: application.Stores{Applications: s.Applications, Loans: s.Loans, Partners: s.Partners, Ledger: s.Ledger,
			Transfers: s.Transfers, Repayments: s.Repayments, Cards: s.Cards, CardOrders: s.CardOrders},
		Gateways: application.Gateways{Scoring: g.Scoring, CoreBanking: g.CoreBanking, Processing: g.Processing,
			CardIssuer: g.CardIssuer, SMS: g.SMS, Webhooks: g.Webhooks},
		Console: application.ConsoleStores{Operators: cs.Operators, AuditLog: cs.AuditLog, Proposals: cs.Proposals, BackOffice: cs.BackOffice},
		Sandbox: application.SandboxPorts{SMSOutbox: c.SMSOutbox, Clock: c.SandboxClock},
	}, cfg)
}
