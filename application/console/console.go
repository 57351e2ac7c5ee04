// Package console holds the operator console's use cases (docs/console.md): operators, their
// logins and second factors, the back office's pages, the four-eyed proposals and their
// decisions, the audit log, and the collectors' work. It is built on package application,
// whose use cases serve the partners and the background work, and never the other way round.
package console

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
	Books                 *BooksHandler
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
// that settle promises and send reminders run in the background (application.CollectionPasses).
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
