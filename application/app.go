// Package application holds tiyin's use cases: one file each, a command or query struct and a
// handler with Handle(ctx, cmd). Use cases depend only on the domain and the ports.
package application

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"go.uber.org/fx"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
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
}

// Product is the loan product's settings.
type Product struct {
	ScheduleType domain.ScheduleType
	ServiceRate  domain.Percent
	PenaltyDaily domain.Percent
}

// loanProduct is what a loan issued now copies: a fresh id and the product's settings.
func (p Product) loanProduct() domain.LoanProduct {
	return domain.LoanProduct{LoanID: newID(), ServiceRate: p.ServiceRate, PenaltyDaily: p.PenaltyDaily, ScheduleType: p.ScheduleType}
}

// offerTerms are the terms a loan on offer o gets from the product; the caller sets the issue
// date. Verify and issue check the cap on them.
func (p Product) offerTerms(o domain.Offer) domain.LoanTerms {
	return domain.LoanTerms{Amount: o.Amount, MonthPeriod: o.MonthPeriod, Rate: o.Percent, ServiceRate: p.ServiceRate, Type: p.ScheduleType}
}

// Deps are the ports the use cases are built on. fx fills them by type; tests and the CLI
// build them by hand.
type Deps struct {
	fx.In

	Clock        ports.Clock
	UoW          ports.UnitOfWork
	Idempotency  ports.IdempotencyStore
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Partners     ports.PartnerRepository
	Queue        ports.WorkQueue
	Scoring      ports.Scoring
	CoreBanking  ports.CoreBanking
	Ledger       ports.LedgerRepository
	Transfers    ports.TransferRepository
	Processing   ports.Processing
	Repayments   ports.RepaymentRepository
	Cards        ports.CardRepository
	CardOrders   ports.CardOrderRepository
	CardIssuer   ports.CardIssuer
	SMS          ports.SMSSender
	Events       ports.EventOutbox
	Webhooks     ports.WebhookSender
	// Sealer seals webhook secrets and hashes SMS codes and card numbers (TIYIN_DATA_KEY).
	Sealer ports.Sealer
	// Operators, AuditLog, Proposals and BackOffice serve the operator console.
	Operators  ports.OperatorRepository
	AuditLog   ports.AuditLog
	Proposals  ports.ProposalRepository
	BackOffice ports.BackOffice
	// SMSOutbox is the sandbox SMS gateway's outbox, nil outside the sandbox.
	SMSOutbox ports.SMSOutbox `optional:"true"`
	// SandboxClock is the movable clock, nil outside the sandbox.
	SandboxClock ports.SandboxClock `optional:"true"`
}

// App groups every use case, so adapters depend on one value.
type App struct {
	RegisterApplication  *RegisterApplicationHandler
	CancelApplication    *CancelApplicationHandler
	VerifyApplication    *VerifyApplicationHandler
	IssueApplication     *IssueApplicationHandler
	GetApplication       *GetApplicationHandler
	ProcessApplication   *ProcessApplicationHandler
	Reconcile            *ReconcileHandler
	CountUnknownOutcomes *CountUnknownOutcomesHandler
	CompleteVerification *CompleteVerificationHandler
	AdvanceClock         *AdvanceClockHandler
	CreateTransfer       *CreateTransferHandler
	ConfirmTransfer      *ConfirmTransferHandler
	GetTransfer          *GetTransferHandler
	CheckLedger          *CheckLedgerHandler
	GetLoan              *GetLoanHandler
	GetSchedule          *GetScheduleHandler
	ListPayments         *ListPaymentsHandler
	CheckRepayment       *CheckRepaymentHandler
	PayRepayment         *PayRepaymentHandler
	GetRepayment         *GetRepaymentHandler
	OrderCard            *OrderCardHandler
	GetCardOrder         *GetCardOrderHandler
	ProcessCardOrder     *ProcessCardOrderHandler
	GetCard              *GetCardHandler
	ChangeCardStatus     *ChangeCardStatusHandler
	AttachCard           *AttachCardHandler
	ConfirmCard          *ConfirmCardHandler
	ReadSMSOutbox        *ReadSMSOutboxHandler
	DeliverEvents        *DeliverEventsHandler
	ListEvents           *ListEventsHandler
	SendTestEvent        *SendTestEventHandler
	SetWebhook           *SetWebhookHandler
	CreatePartner        *CreatePartnerHandler
	ListPartners         *ListPartnersHandler
	SetPartnerEnabled    *SetPartnerEnabledHandler
	RotatePartnerKey     *RotatePartnerKeyHandler
	Authenticate         *AuthenticateHandler
	EnsurePartner        *EnsurePartnerHandler
	Console              Console
}

// Console groups the operator console's use cases (docs/console.md).
type Console struct {
	CreateOperator        *CreateOperatorHandler
	ListOperators         *ListOperatorsHandler
	SetOperatorDisabled   *SetOperatorDisabledHandler
	ResetOperatorPassword *ResetOperatorPasswordHandler
	LogIn                 *LogInHandler
	ResumeSession         *ResumeSessionHandler
	LogOut                *LogOutHandler
	ChangePassword        *ChangePasswordHandler
	SweepSessions         *SweepSessionsHandler
	Dashboard             *ConsoleDashboardHandler
	Search                *ConsoleSearchHandler
	AuditRefusal          *AuditRefusalHandler
	Application           *ConsoleApplicationHandler
	Loan                  *ConsoleLoanHandler
	Ledger                *ConsoleLedgerHandler
	Partners              *ConsolePartnersHandler
	Object                *ConsoleObjectHandler
	AuditTrail            *AuditTrailHandler
	VerifyAudit           *VerifyAuditHandler
	LastAuditVerification *LastAuditVerificationHandler
	RetryStage            *RetryStageHandler
	ResendEvent           *ResendEventHandler
	CompleteVerification  *ConsoleVerificationHandler
	RevealClientData      *RevealClientDataHandler
	Partner               *ConsolePartnerHandler
	ProposeResolution     *ProposeResolutionHandler
	DecideProposal        *DecideProposalHandler
}

func newConsole(d Deps, cfg Config) Console {
	throttles := newLoginThrottles()
	return Console{
		CreateOperator:        NewCreateOperatorHandler(d.Clock, d.UoW, d.Operators, d.AuditLog),
		ListOperators:         NewListOperatorsHandler(d.Operators),
		SetOperatorDisabled:   NewSetOperatorDisabledHandler(d.Clock, d.UoW, d.Operators, d.AuditLog),
		ResetOperatorPassword: NewResetOperatorPasswordHandler(d.Clock, d.UoW, d.Operators, d.AuditLog),
		LogIn:                 NewLogInHandler(d.Clock, d.UoW, d.Operators, d.AuditLog, throttles),
		ResumeSession:         NewResumeSessionHandler(d.Clock, d.Operators),
		LogOut:                NewLogOutHandler(d.Clock, d.UoW, d.Operators, d.AuditLog),
		ChangePassword:        NewChangePasswordHandler(d.Clock, d.UoW, d.Operators, d.AuditLog, throttles),
		SweepSessions:         NewSweepSessionsHandler(d.Clock, d.Operators),
		Dashboard:             NewConsoleDashboardHandler(d.Clock, d.BackOffice, d.Proposals),
		Search:                NewConsoleSearchHandler(d.Clock, d.BackOffice, d.Sealer, d.AuditLog),
		AuditRefusal:          NewAuditRefusalHandler(d.Clock, d.AuditLog),
		Application:           NewConsoleApplicationHandler(d.Clock, d.Applications, d.Loans, d.Partners, d.BackOffice, d.Proposals, d.AuditLog),
		Loan:                  NewConsoleLoanHandler(d.Clock, d.Loans, d.Partners, d.Repayments, d.BackOffice),
		Ledger:                NewConsoleLedgerHandler(d.BackOffice, d.Ledger),
		Partners:              NewConsolePartnersHandler(d.Partners, d.BackOffice),
		Object:                NewConsoleObjectHandler(d.Clock, d.Transfers, d.Repayments, d.CardOrders, d.Cards, d.Partners, d.Proposals, d.AuditLog),
		AuditTrail:            NewAuditTrailHandler(d.AuditLog),
		VerifyAudit:           NewVerifyAuditHandler(d.Clock, d.AuditLog),
		LastAuditVerification: NewLastAuditVerificationHandler(d.AuditLog),
		RetryStage:            NewRetryStageHandler(d.Clock, d.UoW, d.Applications, d.Queue, d.AuditLog),
		ResendEvent:           NewResendEventHandler(d.Clock, d.UoW, d.BackOffice, d.AuditLog),
		CompleteVerification:  NewConsoleVerificationHandler(d.Clock, d.UoW, d.Applications, d.AuditLog),
		RevealClientData:      NewRevealClientDataHandler(d.Clock, d.UoW, d.Applications, d.AuditLog),
		Partner:               NewConsolePartnerHandler(d.Clock, d.UoW, d.Partners, d.AuditLog),
		ProposeResolution:     NewProposeResolutionHandler(d.Clock, d.UoW, d.Applications, d.Transfers, d.Proposals, d.AuditLog),
		DecideProposal: NewDecideProposalHandler(d.Clock, d.UoW, d.Applications, d.Loans, d.Ledger, d.Transfers, d.Proposals,
			d.AuditLog, cfg.Product),
	}
}

// New builds every use case on the given ports.
func New(d Deps, cfg Config) *App {
	processCardOrder := NewProcessCardOrderHandler(d.Clock, d.UoW, d.Processing, d.Cards, d.CardOrders, d.CardIssuer)
	return &App{
		RegisterApplication:  NewRegisterApplicationHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, d.Queue),
		CancelApplication:    NewCancelApplicationHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, cfg.ApplicationTTL),
		VerifyApplication:    NewVerifyApplicationHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, d.Scoring, cfg.Product, cfg.ApplicationTTL),
		IssueApplication:     NewIssueApplicationHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, d.Queue, cfg.Product, cfg.ApplicationTTL),
		GetApplication:       NewGetApplicationHandler(d.Applications),
		ProcessApplication:   NewProcessApplicationHandler(d.Clock, d.UoW, d.Applications, d.Loans, d.Scoring, d.CoreBanking, d.Ledger, cfg.Product),
		Reconcile:            NewReconcileHandler(d.Clock, d.UoW, d.Applications, d.Loans, d.Queue, d.CoreBanking, d.Ledger, d.Transfers, d.Processing, d.CardOrders, processCardOrder, cfg),
		CountUnknownOutcomes: NewCountUnknownOutcomesHandler(d.Clock, d.Applications, d.Transfers, d.CardOrders),
		CompleteVerification: NewCompleteVerificationHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, cfg.ApplicationTTL),
		AdvanceClock:         NewAdvanceClockHandler(d.UoW, d.Idempotency, d.SandboxClock),
		CreateTransfer:       NewCreateTransferHandler(d.Clock, d.UoW, d.Idempotency, d.Applications, d.Loans, d.Ledger, d.Transfers, d.Processing, d.Cards),
		ConfirmTransfer:      NewConfirmTransferHandler(d.Clock, d.UoW, d.Idempotency, d.Ledger, d.Transfers, d.Processing),
		GetTransfer:          NewGetTransferHandler(d.Transfers),
		CheckLedger:          NewCheckLedgerHandler(d.Ledger),
		GetLoan:              NewGetLoanHandler(d.Clock, d.Applications, d.Loans),
		GetSchedule:          NewGetScheduleHandler(d.Clock, d.Loans),
		ListPayments:         NewListPaymentsHandler(d.Loans, d.Repayments),
		CheckRepayment:       NewCheckRepaymentHandler(d.Clock, d.UoW, d.Idempotency, d.Loans, d.Repayments),
		PayRepayment:         NewPayRepaymentHandler(d.Clock, d.UoW, d.Idempotency, d.Loans, d.Ledger, d.Processing, d.Repayments),
		GetRepayment:         NewGetRepaymentHandler(d.Clock, d.Loans, d.Repayments),
		OrderCard:            NewOrderCardHandler(d.Clock, d.UoW, d.Idempotency, d.CardOrders),
		GetCardOrder:         NewGetCardOrderHandler(d.Cards, d.CardOrders),
		ProcessCardOrder:     processCardOrder,
		GetCard:              NewGetCardHandler(d.Cards),
		ChangeCardStatus:     NewChangeCardStatusHandler(d.Clock, d.UoW, d.Idempotency, d.Processing, d.Cards),
		AttachCard:           NewAttachCardHandler(d.Clock, d.UoW, d.Idempotency, d.Processing, d.Cards, d.SMS, d.Sealer, cfg),
		ConfirmCard:          NewConfirmCardHandler(d.Clock, d.UoW, d.Idempotency, d.Processing, d.Cards, d.Sealer),
		ReadSMSOutbox:        NewReadSMSOutboxHandler(d.SMSOutbox),
		DeliverEvents:        NewDeliverEventsHandler(d.Clock, d.Events, d.Webhooks, d.Sealer),
		ListEvents:           NewListEventsHandler(d.Clock, d.Events),
		SendTestEvent:        NewSendTestEventHandler(d.Clock, d.UoW, d.Idempotency, d.Events),
		SetWebhook:           NewSetWebhookHandler(d.UoW, d.Partners, d.Sealer),
		CreatePartner:        NewCreatePartnerHandler(d.Clock, d.UoW, d.Partners),
		ListPartners:         NewListPartnersHandler(d.Partners),
		SetPartnerEnabled:    NewSetPartnerEnabledHandler(d.UoW, d.Partners),
		RotatePartnerKey:     NewRotatePartnerKeyHandler(d.UoW, d.Partners),
		Authenticate:         NewAuthenticateHandler(d.Partners),
		EnsurePartner:        NewEnsurePartnerHandler(d.Clock, d.UoW, d.Partners),
		Console:              newConsole(d, cfg),
	}
}

// newID returns a time-ordered UUID (v7), which keeps primary-key indexes compact.
func newID() uuid.UUID {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.New()
	}
	return id
}

// ownedBy hides another partner's application behind "not found": a partner never learns that
// a foreign id exists.
func ownedBy(a *domain.Application, partnerID uuid.UUID) error {
	if a.PartnerID() != partnerID {
		return domain.ErrApplicationNotFound
	}
	return nil
}

// getOwned reads the partner's application.
func getOwned(ctx context.Context, repo ports.ApplicationRepository, partnerID, id uuid.UUID) (*domain.Application, error) {
	a, err := repo.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := ownedBy(a, partnerID); err != nil {
		return nil, err
	}
	return a, nil
}

// updateOwned changes the partner's application under its row lock, at now. An application
// that outlived its ttl (0: none) by now is EXPIRED, a fact of the clock: the expiry is
// recorded first and kept whatever the answer, and fn then refuses as it does for any EXPIRED
// application, so a call after the TTL answers as the reconciler would have left it.
func updateOwned(ctx context.Context, repo ports.ApplicationRepository, partnerID, id uuid.UUID,
	now time.Time, ttl time.Duration, fn func(a *domain.Application) error) error {
	var refusal error
	err := repo.Update(ctx, id, func(a *domain.Application) error {
		if err := ownedBy(a, partnerID); err != nil {
			return err
		}
		if !a.Expire(now, ttl) {
			return fn(a)
		}
		if refusal = fn(a); refusal == nil {
			return errors.New("an EXPIRED application accepted a change") // never: every change refuses EXPIRED
		}
		return nil
	})
	if err == nil && refusal != nil {
		return keep(refusal)
	}
	return err
}
