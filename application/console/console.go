// Package console holds the operator console's use cases (docs/console.md): operators, their
// logins and second factors, the back office's pages, the four-eyed proposals and their
// decisions, the audit log, and the collectors' work. It is built on package application,
// whose use cases serve the partners and the background work, and never the other way round.
package console

import (
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// Console groups the operator console's use cases (docs/console.md).
type Console struct {
	Operators ConsoleOperators
	Views     ConsoleViews
	Actions   ConsoleActions
	// Collections are the collectors' pages and actions.
	Collections Collections
}

// ConsoleOperators manage operators and their sessions.
type ConsoleOperators struct {
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

// ConsoleViews are the console's pages.
type ConsoleViews struct {
	Dashboard             *ConsoleDashboardHandler
	Search                *ConsoleSearchHandler
	List                  *ConsoleListHandler
	Reports               *ConsoleReportsHandler
	Books                 *ConsoleBooksHandler
	Client                *ConsoleClientHandler
	Application           *ConsoleApplicationHandler
	Loan                  *ConsoleLoanHandler
	LoanAction            *PreviewLoanActionHandler
	Reconciliation        *ConsoleReconciliationHandler
	Ledger                *ConsoleLedgerHandler
	Partners              *ConsolePartnersHandler
	Object                *ConsoleObjectHandler
	AuditTrail            *AuditTrailHandler
	LastAuditVerification *LastAuditVerificationHandler
}

// ConsoleActions are what an operator does, each audited.
type ConsoleActions struct {
	AuditRefusal         *AuditRefusalHandler
	VerifyAudit          *VerifyAuditHandler
	CheckpointAudit      *CheckpointAuditHandler
	RetryStage           *RetryStageHandler
	ResendEvent          *ResendEventHandler
	CompleteVerification *ConsoleVerificationHandler
	RevealClientData     *RevealClientDataHandler
	Partner              *ConsolePartnerHandler
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
	Queue        *ConsoleQueueHandler
	LoanWork     *ConsoleLoanWorkHandler
	Report       *CollectionsReportHandler
	Assign       *AssignCollectorHandler
	LogContact   *LogContactHandler
	PromiseToPay *MakePromiseToPayHandler
	// PreviewBulk and ProposeBulk take a file of manual repayments to one four-eyed proposal.
	PreviewBulk *PreviewBulkRepaymentsHandler
	ProposeBulk *ProposeBulkRepaymentsHandler
	Bulk        *ConsoleBulkHandler
	// PreviewBulkAction and ProposeBulkAction take a waiver or write-off of a queue's loans to
	// one four-eyed proposal.
	PreviewBulkAction *PreviewBulkActionHandler
	ProposeBulkAction *ProposeBulkActionHandler
}

// operatorNames names operators by id, for pages that show who did what.
func operatorNames(os []*domain.Operator) map[uuid.UUID]string {
	out := make(map[uuid.UUID]string, len(os))
	for _, o := range os {
		out[o.ID()] = o.Name()
	}
	return out
}

// collectionsWindow is how far back the report looks by default.
const collectionsWindow = 30 * 24 * time.Hour
