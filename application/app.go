// Package application holds tiyin's use cases: one file each, a command or query struct and a
// handler with Handle(ctx, cmd). Use cases depend only on the domain and the ports.
package application

import (
	"github.com/tiyin/tiyin/ports"
)

// Deps are the ports the use cases are built on, grouped so that no one struct carries more
// than a dozen. Package server fills them from its fx graph; tests and the command line build
// them by hand.
type Deps struct {
	Clock       ports.Clock
	UoW         ports.UnitOfWork
	Idempotency ports.IdempotencyStore
	Queue       ports.WorkQueue
	Events      ports.EventOutbox
	// Sealer seals webhook secrets and hashes SMS codes and card numbers (TIYIN_DATA_KEY).
	Sealer   ports.Sealer
	Stores   Stores
	Gateways Gateways
	Console  ConsoleStores
	Sandbox  SandboxPorts
	// OpsLog hears of what failed in the background (nil: nobody).
	OpsLog ports.OpsLog
}

// Stores are the aggregates' repositories.
type Stores struct {
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Partners     ports.PartnerRepository
	Ledger       ports.LedgerRepository
	Transfers    ports.TransferRepository
	Repayments   ports.RepaymentRepository
	Cards        ports.CardRepository
	CardOrders   ports.CardOrderRepository
	// CodeCounts count attach's SMS codes for its daily caps.
	CodeCounts ports.CodeCounter
	// Reconciliation keeps reconciliation runs and breaks.
	Reconciliation ports.ReconciliationRepository
	// Books keeps the books' closes (nil where nothing closes, a test's graph).
	Books ports.BooksRepository
	// Collections keeps the collectors' work.
	Collections ports.CollectionsRepository
	// Bulk keeps the repayments files proposed at once.
	Bulk ports.BulkRepository
}

// Gateways are the bank's and the networks' systems, and the partners' webhooks.
type Gateways struct {
	Scoring     ports.Scoring
	CoreBanking ports.CoreBanking
	Processing  ports.Processing
	CardIssuer  ports.CardIssuer
	SMS         ports.SMSSender
	Webhooks    ports.WebhookSender
	// Checkpoints sends the audit log's heads to the service's log and the bank's SIEM.
	Checkpoints ports.AuditCheckpointSender
}

// ConsoleStores serve the operator console.
type ConsoleStores struct {
	Operators ports.OperatorRepository
	// SecondFactors are the operators' second factors and recovery codes.
	SecondFactors ports.SecondFactorRepository
	AuditLog      ports.AuditLog
	Proposals     ports.ProposalRepository
	BackOffice    ports.BackOffice
}

// SandboxPorts are the sandbox's own: nil outside the sandbox.
type SandboxPorts struct {
	// SMSOutbox is the sandbox SMS gateway's outbox.
	SMSOutbox ports.SMSOutbox
	// Clock is the movable clock.
	Clock ports.SandboxClock
}

// App groups the use cases by capability, so adapters depend on one value.
type App struct {
	Loans      Loans
	Transfers  Transfers
	Repayments Repayments
	Cards      Cards
	Partners   Partners
	Operations Operations
	Sandbox    Sandbox
	// Collections are the collectors' passes that run in the background.
	Collections Collections
}

// Loans are the microloan's applications and loans (interface.md 1–5, 8–10).
type Loans struct {
	RegisterApplication *RegisterApplicationHandler
	CancelApplication   *CancelApplicationHandler
	VerifyApplication   *VerifyApplicationHandler
	IssueApplication    *IssueApplicationHandler
	GetApplication      *GetApplicationHandler
	FindApplication     *FindApplicationHandler
	ProcessApplication  *ProcessApplicationHandler
	GetLoan             *GetLoanHandler
	GetSchedule         *GetScheduleHandler
	ListPayments        *ListPaymentsHandler
}

// Transfers move the loan's money to a card (interface.md 6–7).
type Transfers struct {
	CreateTransfer  *CreateTransferHandler
	ConfirmTransfer *ConfirmTransferHandler
	GetTransfer     *GetTransferHandler
}

// Repayments collect repayments (interface.md 11–13).
type Repayments struct {
	CheckRepayment *CheckRepaymentHandler
	PayRepayment   *PayRepaymentHandler
	GetRepayment   *GetRepaymentHandler
}

// Cards order, attach and manage payment cards (interface.md 14–20).
type Cards struct {
	OrderCard        *OrderCardHandler
	GetCardOrder     *GetCardOrderHandler
	ProcessCardOrder *ProcessCardOrderHandler
	GetCard          *GetCardHandler
	ChangeCardStatus *ChangeCardStatusHandler
	AttachCard       *AttachCardHandler
	ConfirmCard      *ConfirmCardHandler
}

// Partners are the partners themselves: keys, webhooks and the events sent to them.
type Partners struct {
	Authenticate      *AuthenticateHandler
	EnsurePartner     *EnsurePartnerHandler
	CreatePartner     *CreatePartnerHandler
	ListPartners      *ListPartnersHandler
	SetPartnerEnabled *SetPartnerEnabledHandler
	RotatePartnerKey  *RotatePartnerKeyHandler
	SetWebhook        *SetWebhookHandler
	ListEvents        *ListEventsHandler
	SendTestEvent     *SendTestEventHandler
	DeliverEvents     *DeliverEventsHandler
}

// Operations keep the books and the background work honest.
type Operations struct {
	Reconcile            *ReconcileHandler
	CountUnknownOutcomes *CountUnknownOutcomesHandler
	CheckLedger          *CheckLedgerHandler
	PurgeExpired         *PurgeExpiredHandler
	ReconcileDay         *ReconcileDayHandler
	CloseBooks           *CloseBooksHandler
	TrialBalance         *TrialBalanceHandler
	Journal              *JournalHandler
	// SweepSessions deletes the operators' console sessions that expired.
	SweepSessions *SweepSessionsHandler
}

// Sandbox is what only the sandbox offers.
type Sandbox struct {
	AdvanceClock         *AdvanceClockHandler
	CompleteVerification *CompleteVerificationHandler
	ReadSMSOutbox        *ReadSMSOutboxHandler
	// Reset erases the partner's sandbox: its objects and its clock.
	Reset *ResetSandboxHandler
}

// New builds every use case but the console's (package console) on the given ports: each
// capability on the few it needs. The server's fx graph builds the same capabilities one module
// each (server/wiring.go).
func New(d Deps, cfg Config) *App {
	st, gw := d.Stores, d.Gateways
	cards := NewCards(CardsDeps{Clock: d.Clock, UoW: d.UoW, Idempotency: d.Idempotency, Processing: gw.Processing,
		Cards: st.Cards, CodeCounts: st.CodeCounts, CardOrders: st.CardOrders, CardIssuer: gw.CardIssuer, SMS: gw.SMS, Sealer: d.Sealer,
		OpsLog: d.OpsLog}, cfg)
	ops := NewOperations(OperationsDeps{Clock: d.Clock, UoW: d.UoW, Idempotency: d.Idempotency, Events: d.Events, Queue: d.Queue, Applications: st.Applications,
		Loans: st.Loans, Ledger: st.Ledger, Transfers: st.Transfers, CardOrders: st.CardOrders, CoreBanking: gw.CoreBanking,
		Processing: gw.Processing, Cards: cards, CodeCounts: st.CodeCounts, Reconciliation: st.Reconciliation, Books: st.Books,
		Operators: d.Console.Operators}, cfg)
	coll := NewCollections(CollectionsDeps{Clock: d.Clock, UoW: d.UoW, Applications: st.Applications, Loans: st.Loans,
		Collections: st.Collections, Events: d.Events, SMS: gw.SMS}, cfg.Collections)
	return &App{
		Loans: NewLoans(LoansDeps{Clock: d.Clock, UoW: d.UoW, Idempotency: d.Idempotency, Queue: d.Queue,
			Applications: st.Applications, Loans: st.Loans, Repayments: st.Repayments, Ledger: st.Ledger,
			Scoring: gw.Scoring, CoreBanking: gw.CoreBanking, OpsLog: d.OpsLog}, cfg),
		Transfers: NewTransfers(TransfersDeps{Clock: d.Clock, UoW: d.UoW, Idempotency: d.Idempotency,
			Applications: st.Applications, Loans: st.Loans, Ledger: st.Ledger, Transfers: st.Transfers,
			Processing: gw.Processing, Cards: st.Cards}),
		Repayments: NewRepayments(RepaymentsDeps{Clock: d.Clock, UoW: d.UoW, Idempotency: d.Idempotency, Loans: st.Loans,
			Ledger: st.Ledger, Processing: gw.Processing, Repayments: st.Repayments}),
		Cards: cards,
		Partners: NewPartners(PartnersDeps{Clock: d.Clock, UoW: d.UoW, Idempotency: d.Idempotency, Partners: st.Partners,
			Events: d.Events, Webhooks: gw.Webhooks, Sealer: d.Sealer, OpsLog: d.OpsLog}),
		Operations: ops,
		Sandbox: NewSandbox(SandboxDeps{Clock: d.Clock, UoW: d.UoW, Idempotency: d.Idempotency, Applications: st.Applications,
			SandboxClock: d.Sandbox.Clock, SMSOutbox: d.Sandbox.SMSOutbox}, cfg),
		Collections: coll,
	}
}
