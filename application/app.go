// Package application holds tiyin's use cases: one file each, a command or query struct and a
// handler with Handle(ctx, cmd). Use cases depend only on the domain and the ports.
package application

// App groups the use cases by capability, so adapters depend on one value.
type App struct {
	Loans      LoanUseCases
	Transfers  TransferUseCases
	Repayments RepaymentUseCases
	Cards      CardUseCases
	Partners   PartnerUseCases
	Operations OperationUseCases
	Sandbox    SandboxUseCases
	// Collections are the collectors' passes that run in the background.
	Collections CollectionPasses
}

// LoanUseCases are the use cases of the microloan's applications and loans (interface.md 1–5, 8–10).
type LoanUseCases struct {
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

// TransferUseCases move the loan's money to a card (interface.md 6–7).
type TransferUseCases struct {
	CreateTransfer  *CreateTransferHandler
	ConfirmTransfer *ConfirmTransferHandler
	GetTransfer     *GetTransferHandler
}

// RepaymentUseCases collect repayments (interface.md 11–13).
type RepaymentUseCases struct {
	CheckRepayment *CheckRepaymentHandler
	PayRepayment   *PayRepaymentHandler
	GetRepayment   *GetRepaymentHandler
}

// CardUseCases order, attach and manage payment cards (interface.md 14–20).
type CardUseCases struct {
	OrderCard        *OrderCardHandler
	GetCardOrder     *GetCardOrderHandler
	ProcessCardOrder *ProcessCardOrderHandler
	GetCard          *GetCardHandler
	ChangeCardStatus *ChangeCardStatusHandler
	AttachCard       *AttachCardHandler
	ConfirmCard      *ConfirmCardHandler
}

// PartnerUseCases serve the partners themselves: keys, webhooks and the events sent to them.
type PartnerUseCases struct {
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

// OperationUseCases keep the books and the background work honest.
type OperationUseCases struct {
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

// SandboxUseCases are what only the sandbox offers.
type SandboxUseCases struct {
	AdvanceClock         *AdvanceClockHandler
	CompleteVerification *CompleteVerificationHandler
	ReadSMSOutbox        *ReadSMSOutboxHandler
	// Reset erases the partner's sandbox: its objects and its clock.
	Reset *ResetSandboxHandler
}
