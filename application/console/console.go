// Package console holds the operator console's use cases (docs/console.md): operators, their
// logins and second factors, the back office's pages, the four-eyed proposals and their
// decisions, the audit log, and the collectors' work. It is built on package application,
// whose use cases serve the partners and the background work, and never the other way round.
package console

import (
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/ports"
)

// Console groups the operator console's use cases (docs/console.md).
type Console struct {
	Operators Operators
	Views     Views
	Actions   Actions
	// Collections are the collectors' pages and actions.
	Collections Collections
}

// Operators manage operators and their sessions.
type Operators struct {
	CreateOperator        *CreateOperatorHandler
	ListOperators         *ListOperatorsHandler
	SetOperatorDisabled   *SetOperatorDisabledHandler
	ResetOperatorPassword *ResetOperatorPasswordHandler
	ChangeRole            *ChangeOperatorRoleHandler
	DecideGrant           *DecideOperatorGrantHandler
	LogIn                 *LogInHandler
	ResumeSession         *ResumeSessionHandler
	LogOut                *LogOutHandler
	ChangePassword        *ChangePasswordHandler
	BeginEnrolment        *BeginEnrolmentHandler
	EnrolSecondFactor     *EnrolSecondFactorHandler
	ResetSecondFactor     *ResetSecondFactorHandler
	SetLanguage           *SetLanguageHandler
}

// Views are the console's pages.
type Views struct {
	Dashboard             *DashboardHandler
	Search                *SearchHandler
	List                  *ListHandler
	Reports               *ReportsHandler
	Client                *ClientHandler
	Application           *ApplicationHandler
	Loan                  *LoanHandler
	LoanAction            *PreviewLoanActionHandler
	Reconciliation        *ReconciliationHandler
	Ledger                *LedgerHandler
	Partners              *PartnersHandler
	Object                *ObjectHandler
	AuditTrail            *AuditTrailHandler
	LastAuditVerification *LastAuditVerificationHandler
}

// Actions are what an operator does, each audited.
type Actions struct {
	AuditRefusal         *AuditRefusalHandler
	VerifyAudit          *VerifyAuditHandler
	CheckpointAudit      *CheckpointAuditHandler
	RetryStage           *RetryStageHandler
	ResendEvent          *ResendEventHandler
	CompleteVerification *VerificationHandler
	RevealClientData     *RevealClientDataHandler
	Partner              *PartnerHandler
	ProposeResolution    *ProposeResolutionHandler
	DecideProposal       *DecideProposalHandler
	ProposeLoanAction    *ProposeLoanActionHandler
	ExplainBreak         *ExplainBreakHandler
	// ProposeBreakAcceptance proposes accepting a break's network side (ACCEPT_BREAK).
	ProposeBreakAcceptance *ProposeBreakAcceptanceHandler
	// ProposeBreakReopening proposes reopening explained breaks (REOPEN_BREAK).
	ProposeBreakReopening *ProposeBreakReopeningHandler
	RunReconciliation     *RunReconciliationHandler
}

// Collections are the collectors' pages and actions (docs/console.md, "Collections"): the
// queues, the contact log, promises to pay, the report, and the bulk proposals. The passes
// that settle promises and send reminders run in the background (application.Collections).
type Collections struct {
	Queue        *QueueHandler
	LoanWork     *LoanWorkHandler
	Report       *CollectionsReportHandler
	Assign       *AssignCollectorHandler
	LogContact   *LogContactHandler
	PromiseToPay *MakePromiseToPayHandler
	// PreviewBulk and ProposeBulk take a file of manual repayments to one four-eyed proposal.
	PreviewBulk *PreviewBulkRepaymentsHandler
	ProposeBulk *ProposeBulkRepaymentsHandler
	Bulk        *BulkHandler
	// PreviewBulkAction and ProposeBulkAction take a waiver or write-off of a queue's loans to
	// one four-eyed proposal.
	PreviewBulkAction *PreviewBulkActionHandler
	ProposeBulkAction *ProposeBulkActionHandler
}

// ConsoleDeps are the ports the operator console needs: it reads across every aggregate.
type ConsoleDeps struct {
	Clock   ports.Clock
	UoW     ports.UnitOfWork
	Queue   ports.WorkQueue
	Sealer  ports.Sealer
	Stores  application.Stores
	Console application.ConsoleStores
	// ReconcileDay is the operations' day reconciliation, which the console runs on demand.
	ReconcileDay *application.ReconcileDayHandler
	// Checkpoints sends the audit log's heads to the service's log and the bank's SIEM.
	Checkpoints ports.AuditCheckpointSender
}

// NewConsole builds the operator console's use cases.
func NewConsole(d ConsoleDeps, cfg application.Config) Console {
	throttles := newLoginThrottles()
	st, cs := d.Stores, d.Console
	return Console{
		Operators: Operators{
			CreateOperator:        NewCreateOperatorHandler(d.Clock, d.UoW, cs.Operators, cs.AuditLog),
			ListOperators:         NewListOperatorsHandler(cs.Operators, cs.SecondFactors),
			SetOperatorDisabled:   NewSetOperatorDisabledHandler(d.Clock, d.UoW, cs.Operators, cs.AuditLog),
			ResetOperatorPassword: NewResetOperatorPasswordHandler(d.Clock, d.UoW, cs.Operators, cs.AuditLog),
			ChangeRole:            NewChangeOperatorRoleHandler(d.Clock, d.UoW, cs.Operators, cs.AuditLog),
			DecideGrant:           NewDecideOperatorGrantHandler(d.Clock, d.UoW, cs.Operators, cs.SecondFactors, cs.AuditLog),
			LogIn:                 NewLogInHandler(d.Clock, d.UoW, cs.Operators, cs.SecondFactors, cs.AuditLog, throttles),
			ResumeSession:         NewResumeSessionHandler(d.Clock, cs.Operators),
			LogOut:                NewLogOutHandler(d.Clock, d.UoW, cs.Operators, cs.AuditLog),
			ChangePassword:        NewChangePasswordHandler(d.Clock, d.UoW, cs.Operators, cs.AuditLog, throttles),
			BeginEnrolment:        NewBeginEnrolmentHandler(d.Clock, d.UoW, cs.SecondFactors, cs.AuditLog),
			EnrolSecondFactor:     NewEnrolSecondFactorHandler(d.Clock, d.UoW, cs.Operators, cs.SecondFactors, cs.AuditLog),
			ResetSecondFactor:     NewResetSecondFactorHandler(d.Clock, d.UoW, cs.Operators, cs.SecondFactors, cs.AuditLog),
			SetLanguage:           NewSetLanguageHandler(d.UoW, cs.Operators),
		},
		Views: Views{
			Dashboard:             NewDashboardHandler(d.Clock, cs.BackOffice, cs.Proposals, st.Reconciliation, cs.Operators),
			Search:                NewSearchHandler(d.Clock, d.UoW, cs.BackOffice, d.Sealer, cs.AuditLog),
			List:                  NewListHandler(d.Clock, d.UoW, cs.BackOffice, st.Partners, cs.AuditLog),
			Reports:               NewReportsHandler(d.Clock, cs.BackOffice),
			Client:                NewClientHandler(d.Clock, d.UoW, cs.BackOffice, cs.AuditLog),
			Application:           NewApplicationHandler(d.Clock, st.Applications, st.Loans, st.Partners, cs.BackOffice, cs.Proposals, cs.AuditLog),
			Loan:                  NewLoanHandler(d.Clock, st.Loans, st.Partners, st.Repayments, cs.BackOffice, cs.Proposals),
			LoanAction:            NewPreviewLoanActionHandler(d.Clock, st.Loans, st.Partners, cs.Proposals, st.Repayments),
			Reconciliation:        NewReconciliationHandler(d.Clock, d.UoW, st.Reconciliation, cs.Proposals, cs.Operators, cs.AuditLog),
			Ledger:                NewLedgerHandler(cs.BackOffice, st.Ledger),
			Partners:              NewPartnersHandler(st.Partners, cs.BackOffice),
			Object:                NewObjectHandler(d.Clock, st.Transfers, st.Repayments, st.CardOrders, st.Cards, st.Partners, cs.Proposals, cs.AuditLog),
			AuditTrail:            NewAuditTrailHandler(cs.AuditLog),
			LastAuditVerification: NewLastAuditVerificationHandler(cs.AuditLog),
		},
		Actions: Actions{
			AuditRefusal:         NewAuditRefusalHandler(d.Clock, d.UoW, cs.AuditLog),
			VerifyAudit:          NewVerifyAuditHandler(d.Clock, d.UoW, cs.AuditLog),
			CheckpointAudit:      NewCheckpointAuditHandler(cs.AuditLog, d.Checkpoints),
			RetryStage:           NewRetryStageHandler(d.Clock, d.UoW, st.Applications, d.Queue, cs.AuditLog),
			ResendEvent:          NewResendEventHandler(d.Clock, d.UoW, cs.BackOffice, cs.AuditLog),
			CompleteVerification: NewVerificationHandler(d.Clock, d.UoW, st.Applications, cs.AuditLog),
			RevealClientData:     NewRevealClientDataHandler(d.Clock, d.UoW, st.Applications, cs.AuditLog),
			Partner:              NewPartnerHandler(d.Clock, d.UoW, st.Partners, d.Sealer, cs.AuditLog),
			ProposeResolution:    NewProposeResolutionHandler(d.Clock, d.UoW, st.Applications, st.Transfers, cs.Proposals, cs.AuditLog),
			DecideProposal: NewDecideProposalHandler(d.Clock, d.UoW, st.Applications, st.Loans, st.Ledger, st.Transfers,
				st.Repayments, cs.Proposals, cs.Operators, st.Reconciliation, st.Bulk, cs.AuditLog, cfg.Product),
			ProposeBreakAcceptance: NewProposeBreakAcceptanceHandler(d.Clock, d.UoW, st.Reconciliation, st.Transfers, cs.Proposals, cs.AuditLog),
			ProposeLoanAction:      NewProposeLoanActionHandler(d.Clock, d.UoW, st.Loans, cs.Proposals, st.Repayments, cs.AuditLog),
			ExplainBreak:           NewExplainBreakHandler(d.Clock, d.UoW, st.Reconciliation, cs.Proposals, cs.AuditLog),
			ProposeBreakReopening:  NewProposeBreakReopeningHandler(d.Clock, d.UoW, st.Reconciliation, cs.Proposals, cs.AuditLog),
			RunReconciliation:      NewRunReconciliationHandler(d.Clock, d.UoW, d.ReconcileDay, cs.AuditLog),
		},
		Collections: newCollections(d, cfg.Collections),
	}
}

// newCollections builds the collectors' use cases.
func newCollections(d ConsoleDeps, cfg application.CollectionsConfig) Collections {
	cfg = cfg.WithDefaults()
	st, cs := d.Stores, d.Console
	preview := NewPreviewBulkRepaymentsHandler(d.Clock, st.Loans, st.Repayments)
	previewAction := NewPreviewBulkActionHandler(d.Clock, st.Collections, st.Loans, cfg.Buckets)
	return Collections{
		PreviewBulkAction: previewAction,
		ProposeBulkAction: NewProposeBulkActionHandler(d.Clock, d.UoW, previewAction, st.Bulk, cs.Proposals, cs.AuditLog),
		PreviewBulk:       preview,
		Bulk:              NewBulkHandler(d.Clock, cs.Proposals, st.Bulk),
		ProposeBulk:       NewProposeBulkRepaymentsHandler(d.Clock, d.UoW, preview, st.Bulk, cs.Proposals, cs.AuditLog),
		Queue:             NewQueueHandler(d.Clock, st.Collections, cs.Operators, cfg.Buckets),
		LoanWork:          NewLoanWorkHandler(st.Loans, st.Collections, cs.Operators),
		Report:            NewCollectionsReportHandler(d.Clock, st.Collections, cfg.Buckets),
		Assign:            NewAssignCollectorHandler(d.Clock, d.UoW, st.Loans, st.Collections, cs.Operators, cs.AuditLog),
		LogContact:        NewLogContactHandler(d.Clock, d.UoW, st.Loans, st.Collections, cs.AuditLog),
		PromiseToPay:      NewMakePromiseToPayHandler(d.Clock, d.UoW, st.Loans, st.Collections, cs.AuditLog),
	}
}
