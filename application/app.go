// Package application holds tiyin's use cases: one file each, a command or query struct and a
// handler with Handle(ctx, cmd). Use cases depend only on the domain and the ports.
package application

import (
	"time"

	"github.com/tiyin/tiyin/domain"
)

// Config holds the business settings the use cases need.
type Config struct {
	// ApplicationTTL is how long an application may wait in PENDING before it EXPIRES.
	ApplicationTTL time.Duration
	// SandboxCallDelay, when positive, completes a required phone call that long after it was
	// requested (sandbox only); zero leaves it to the sandbox endpoint.
	SandboxCallDelay time.Duration
	// Product is the loan product's settings, copied into each loan at issuance.
	Product Product
	// LoanContractDelay is how long after issuance core banking is first asked for the loan's
	// contract number.
	LoanContractDelay time.Duration
	// OTPTTL is how long an SMS code lives.
	OTPTTL time.Duration
	// SandboxOTP, when set, is every SMS code's value (sandbox only).
	SandboxOTP string
	// AttachCodeCaps are the most SMS codes attach sends a day per card, phone and partner; a
	// cap left 0 takes its default.
	AttachCodeCaps domain.AttachCodeCaps
	// Books are the close's rules (non-accrual, provisions) and Chart the general ledger
	// mapping; zero values take the shipped examples.
	Books domain.BooksRules
	Chart domain.Chart
	// Collections cuts the collections queues and times the reminders to borrowers.
	Collections CollectionsConfig
}

// Product is the loan product's settings.
type Product struct {
	ScheduleType domain.ScheduleType
	ServiceRate  domain.Percent
	PenaltyDaily domain.Percent
}

// LoanProduct is what a loan issued now copies: a fresh id and the product's settings.
func (p Product) LoanProduct() domain.LoanProduct {
	return domain.LoanProduct{LoanID: NewID(), ServiceRate: p.ServiceRate, PenaltyDaily: p.PenaltyDaily, ScheduleType: p.ScheduleType}
}

// offerTerms are the terms a loan on offer o gets from the product; the caller sets the issue
// date. Verify and issue check the cap on them.
func (p Product) offerTerms(o domain.Offer) domain.LoanTerms {
	return domain.LoanTerms{Amount: o.Amount, MonthPeriod: o.MonthPeriod, Rate: o.Percent, ServiceRate: p.ServiceRate, Type: p.ScheduleType}
}

// booksRules are the configured rules of the close, or the shipped example.
func (c Config) booksRules() domain.BooksRules {
	if len(c.Books.Provisions) == 0 {
		return domain.DefaultBooksRules()
	}
	return c.Books
}

// ProvisionTable is the provision table the close applies: the configured one, or the shipped
// example's.
func (c Config) ProvisionTable() []domain.ProvisionClass {
	return c.booksRules().Provisions
}

// chart is the configured general ledger mapping, or the shipped example.
func (c Config) chart() domain.Chart {
	if c.Chart.GL(domain.AccountLoan) == "" {
		return domain.DefaultChart()
	}
	return c.Chart
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
