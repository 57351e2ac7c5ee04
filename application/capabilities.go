package application

import (
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Each capability is built on the ports it names, and nothing else: a bank team that changes
// one sees at a glance what it touches. The server's fx graph provides each from its own
// module (server/wiring.go); New builds them all but the console for tests.

// LoansDeps are the ports Loans needs.
type LoansDeps struct {
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
	// OpsLog hears of applications that failed and stages whose outcome stays unknown (nil:
	// nobody).
	OpsLog ports.OpsLog
}

// NewLoans builds the applications' and loans' use cases.
func NewLoans(d LoansDeps, cfg Config) Loans {
	return Loans{
		RegisterApplication: NewRegisterApplicationHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, d.Queue),
		CancelApplication:   NewCancelApplicationHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, cfg.ApplicationTTL),
		VerifyApplication:   NewVerifyApplicationHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, d.Scoring, cfg.Product, cfg.ApplicationTTL),
		IssueApplication:    NewIssueApplicationHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, d.Queue, cfg.Product, cfg.ApplicationTTL),
		GetApplication:      NewGetApplicationHandler(d.Applications),
		FindApplication:     NewFindApplicationHandler(d.Applications),
		ProcessApplication:  NewProcessApplicationHandler(d.Clock, d.UoW, d.Applications, d.Loans, d.Scoring, d.CoreBanking, d.Ledger, d.OpsLog, cfg.Product),
		GetLoan:             NewGetLoanHandler(d.Clock, d.Applications, d.Loans),
		GetSchedule:         NewGetScheduleHandler(d.Clock, d.Loans),
		ListPayments:        NewListPaymentsHandler(d.Loans, d.Repayments),
	}
}

// TransfersDeps are the ports Transfers needs.
type TransfersDeps struct {
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

// NewTransfers builds the transfers' use cases.
func NewTransfers(d TransfersDeps) Transfers {
	return Transfers{
		CreateTransfer:  NewCreateTransferHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, d.Loans, d.Ledger, d.Transfers, d.Processing, d.Cards),
		ConfirmTransfer: NewConfirmTransferHandler(d.Clock, d.UoW, d.Idempotency, d.Ledger, d.Transfers, d.Processing),
		GetTransfer:     NewGetTransferHandler(d.Transfers),
	}
}

// RepaymentsDeps are the ports Repayments needs.
type RepaymentsDeps struct {
	Clock       ports.Clock
	UoW         ports.UnitOfWork
	Idempotency ports.IdempotencyStore
	Loans       ports.LoanRepository
	Ledger      ports.LedgerRepository
	Processing  ports.Processing
	Repayments  ports.RepaymentRepository
}

// NewRepayments builds the repayments' use cases.
func NewRepayments(d RepaymentsDeps) Repayments {
	return Repayments{
		CheckRepayment: NewCheckRepaymentHandler(d.Clock, d.UoW, d.Idempotency, d.Loans, d.Repayments),
		PayRepayment:   NewPayRepaymentHandler(d.Clock, d.UoW, d.Idempotency, d.Loans, d.Ledger, d.Processing, d.Repayments),
		GetRepayment:   NewGetRepaymentHandler(d.Clock, d.Loans, d.Repayments),
	}
}

// CardsDeps are the ports Cards needs.
type CardsDeps struct {
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
	// OpsLog hears of card orders the issuer never took (nil: nobody).
	OpsLog ports.OpsLog
}

// NewCards builds the cards' use cases.
func NewCards(d CardsDeps, cfg Config) Cards {
	return Cards{
		OrderCard:        NewOrderCardHandler(d.Clock, d.UoW, d.Idempotency, d.CardOrders),
		GetCardOrder:     NewGetCardOrderHandler(d.Cards, d.CardOrders),
		ProcessCardOrder: NewProcessCardOrderHandler(d.Clock, d.UoW, d.Processing, d.Cards, d.CardOrders, d.CardIssuer, d.OpsLog),
		GetCard:          NewGetCardHandler(d.Cards),
		ChangeCardStatus: NewChangeCardStatusHandler(d.Clock, d.UoW, d.Idempotency, d.Processing, d.Cards),
		AttachCard:       NewAttachCardHandler(d.Clock, d.UoW, d.Idempotency, d.Processing, d.Cards, d.CodeCounts, d.SMS, d.Sealer, cfg),
		ConfirmCard:      NewConfirmCardHandler(d.Clock, d.UoW, d.Idempotency, d.Processing, d.Cards, d.Sealer),
	}
}

// PartnersDeps are the ports Partners needs.
type PartnersDeps struct {
	Clock       ports.Clock
	UoW         ports.UnitOfWork
	Idempotency ports.IdempotencyStore
	Partners    ports.PartnerRepository
	Events      ports.EventOutbox
	Webhooks    ports.WebhookSender
	Sealer      ports.Sealer
	// OpsLog hears of webhook deliveries that failed (nil: nobody).
	OpsLog ports.OpsLog
}

// NewPartners builds the partners' use cases: keys, webhooks, events.
func NewPartners(d PartnersDeps) Partners {
	return Partners{
		Authenticate:      NewAuthenticateHandler(d.Partners),
		EnsurePartner:     NewEnsurePartnerHandler(d.Clock, d.UoW, d.Partners, d.Sealer),
		CreatePartner:     NewCreatePartnerHandler(d.Clock, d.UoW, d.Partners),
		ListPartners:      NewListPartnersHandler(d.Partners),
		SetPartnerEnabled: NewSetPartnerEnabledHandler(d.UoW, d.Partners),
		RotatePartnerKey:  NewRotatePartnerKeyHandler(d.Clock, d.UoW, d.Partners),
		SetWebhook:        NewSetWebhookHandler(d.Clock, d.UoW, d.Partners, d.Sealer),
		ListEvents:        NewListEventsHandler(d.Clock, d.Events),
		SendTestEvent:     NewSendTestEventHandler(d.Clock, d.UoW, d.Idempotency, d.Events),
		DeliverEvents:     NewDeliverEventsHandler(d.Clock, d.UoW, d.Events, d.Webhooks, d.Sealer, d.OpsLog),
	}
}

// OperationsDeps are the ports Operations needs, and the card orders' processing it drives.
type OperationsDeps struct {
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
	Cards        Cards
	CodeCounts   ports.CodeCounter
	// Reconciliation may be nil where nothing reconciles (a test's graph).
	Reconciliation ports.ReconciliationRepository
	// Books may be nil where nothing closes the books (a test's graph).
	Books ports.BooksRepository
	// Operators keep the console sessions the sweep deletes.
	Operators ports.OperatorRepository
}

// NewOperations builds the reconciler, the unknown outcomes' count, the ledger check and the
// sweep of expired console sessions.
func NewOperations(d OperationsDeps, cfg Config) Operations {
	return Operations{
		Reconcile: NewReconcileHandler(d.Clock, d.UoW, d.Applications, d.Loans, d.Queue, d.CoreBanking, d.Ledger, d.Transfers,
			d.Processing, d.CardOrders, d.Cards.ProcessCardOrder, cfg),
		CountUnknownOutcomes: NewCountUnknownOutcomesHandler(d.Clock, d.Applications, d.Transfers, d.CardOrders),
		CheckLedger:          NewCheckLedgerHandler(d.Ledger),
		ReconcileDay:         NewReconcileDayHandler(d.Clock, d.UoW, d.Processing, d.CoreBanking, d.Reconciliation, d.Transfers, d.Ledger),
		PurgeExpired:         NewPurgeExpiredHandler(d.UoW, d.Idempotency, d.Events, d.CodeCounts),
		CloseBooks:           NewCloseBooksHandler(d.Clock, d.UoW, d.Books, cfg.booksRules()),
		TrialBalance:         NewTrialBalanceHandler(d.Books, cfg.chart()),
		Journal:              NewJournalHandler(d.Books, cfg.chart()),
		SweepSessions:        NewSweepSessionsHandler(d.Clock, d.UoW, d.Operators),
	}
}

// booksRules are the configured rules of the close, or the shipped example.
func (c Config) booksRules() domain.BooksRules {
	if len(c.Books.Provisions) == 0 {
		return domain.DefaultBooksRules()
	}
	return c.Books
}

// chart is the configured general ledger mapping, or the shipped example.
func (c Config) chart() domain.Chart {
	if c.Chart.GL(domain.AccountLoan) == "" {
		return domain.DefaultChart()
	}
	return c.Chart
}

// SandboxDeps are the ports Sandbox needs; SandboxClock and SMSOutbox are nil outside it.
type SandboxDeps struct {
	Clock        ports.Clock
	UoW          ports.UnitOfWork
	Idempotency  ports.IdempotencyStore
	Applications ports.ApplicationRepository
	SandboxClock ports.SandboxClock
	SMSOutbox    ports.SMSOutbox
}

// NewSandbox builds what only the sandbox offers.
func NewSandbox(d SandboxDeps, cfg Config) Sandbox {
	return Sandbox{
		AdvanceClock:         NewAdvanceClockHandler(d.UoW, d.Idempotency, d.SandboxClock),
		CompleteVerification: NewCompleteVerificationHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, cfg.ApplicationTTL),
		ReadSMSOutbox:        NewReadSMSOutboxHandler(d.SMSOutbox),
		Reset:                NewResetSandboxHandler(d.UoW, d.Idempotency, d.SandboxClock),
	}
}
