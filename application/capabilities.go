package application

import (
	"github.com/tiyin/tiyin/ports"
)

// ConsoleDeps are the ports the operator console needs: it reads across every aggregate.
type ConsoleDeps struct {
	Clock   ports.Clock
	UoW     ports.UnitOfWork
	Queue   ports.WorkQueue
	Sealer  ports.Sealer
	Stores  Stores
	Console ConsoleStores
	// ReconcileDay is the operations' day reconciliation, which the console runs on demand.
	ReconcileDay *ReconcileDayHandler
	// Checkpoints sends the audit log's heads to the service's log and the bank's SIEM.
	Checkpoints ports.AuditCheckpointSender
}

// NewConsole builds the operator console's use cases.
func NewConsole(d ConsoleDeps, cfg Config) Console {
	throttles := newLoginThrottles()
	st, cs := d.Stores, d.Console
	return Console{
		Operators: ConsoleOperators{
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
			SweepSessions:         NewSweepSessionsHandler(d.Clock, d.UoW, cs.Operators),
		},
		Views: ConsoleViews{
			Dashboard:             NewConsoleDashboardHandler(d.Clock, cs.BackOffice, cs.Proposals, st.Reconciliation, cs.Operators),
			Search:                NewConsoleSearchHandler(d.Clock, d.UoW, cs.BackOffice, d.Sealer, cs.AuditLog),
			List:                  NewConsoleListHandler(d.Clock, d.UoW, cs.BackOffice, st.Partners, cs.AuditLog),
			Reports:               NewConsoleReportsHandler(d.Clock, cs.BackOffice),
			Client:                NewConsoleClientHandler(d.Clock, d.UoW, cs.BackOffice, cs.AuditLog),
			Application:           NewConsoleApplicationHandler(d.Clock, st.Applications, st.Loans, st.Partners, cs.BackOffice, cs.Proposals, cs.AuditLog),
			Loan:                  NewConsoleLoanHandler(d.Clock, st.Loans, st.Partners, st.Repayments, cs.BackOffice, cs.Proposals),
			LoanAction:            NewPreviewLoanActionHandler(d.Clock, st.Loans, st.Partners, cs.Proposals, st.Repayments),
			Reconciliation:        NewConsoleReconciliationHandler(d.Clock, d.UoW, st.Reconciliation, cs.Proposals, cs.Operators, cs.AuditLog),
			Ledger:                NewConsoleLedgerHandler(cs.BackOffice, st.Ledger),
			Partners:              NewConsolePartnersHandler(st.Partners, cs.BackOffice),
			Object:                NewConsoleObjectHandler(d.Clock, st.Transfers, st.Repayments, st.CardOrders, st.Cards, st.Partners, cs.Proposals, cs.AuditLog),
			AuditTrail:            NewAuditTrailHandler(cs.AuditLog),
			LastAuditVerification: NewLastAuditVerificationHandler(cs.AuditLog),
		},
		Actions: ConsoleActions{
			AuditRefusal:         NewAuditRefusalHandler(d.Clock, d.UoW, cs.AuditLog),
			VerifyAudit:          NewVerifyAuditHandler(d.Clock, d.UoW, cs.AuditLog),
			CheckpointAudit:      NewCheckpointAuditHandler(cs.AuditLog, d.Checkpoints),
			RetryStage:           NewRetryStageHandler(d.Clock, d.UoW, st.Applications, d.Queue, cs.AuditLog),
			ResendEvent:          NewResendEventHandler(d.Clock, d.UoW, cs.BackOffice, cs.AuditLog),
			CompleteVerification: NewConsoleVerificationHandler(d.Clock, d.UoW, st.Applications, cs.AuditLog),
			RevealClientData:     NewRevealClientDataHandler(d.Clock, d.UoW, st.Applications, cs.AuditLog),
			Partner:              NewConsolePartnerHandler(d.Clock, d.UoW, st.Partners, d.Sealer, cs.AuditLog),
			ProposeResolution:    NewProposeResolutionHandler(d.Clock, d.UoW, st.Applications, st.Transfers, cs.Proposals, cs.AuditLog),
			DecideProposal: NewDecideProposalHandler(d.Clock, d.UoW, st.Applications, st.Loans, st.Ledger, st.Transfers,
				st.Repayments, cs.Proposals, cs.Operators, st.Reconciliation, st.Bulk, cs.AuditLog, cfg.Product),
			ProposeBreakAcceptance: NewProposeBreakAcceptanceHandler(d.Clock, d.UoW, st.Reconciliation, st.Transfers, cs.Proposals, cs.AuditLog),
			ProposeLoanAction:      NewProposeLoanActionHandler(d.Clock, d.UoW, st.Loans, cs.Proposals, st.Repayments, cs.AuditLog),
			ExplainBreak:           NewExplainBreakHandler(d.Clock, d.UoW, st.Reconciliation, cs.Proposals, cs.AuditLog),
			ProposeBreakReopening:  NewProposeBreakReopeningHandler(d.Clock, d.UoW, st.Reconciliation, cs.Proposals, cs.AuditLog),
			RunReconciliation:      NewRunReconciliationHandler(d.Clock, d.UoW, d.ReconcileDay, cs.AuditLog),
		},
	}
}
