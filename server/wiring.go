package server

import (
	"reflect"

	"go.uber.org/fx"

	"github.com/tiyin/tiyin/application"
	appconsole "github.com/tiyin/tiyin/application/console"
)

// appModule is the use cases, one fx module per capability. Each use case's constructor is
// given to fx as it is: its parameters are the only declaration of what it needs, so a port
// added to a use case is added in its constructor and nowhere here. A capability's struct
// (application.LoanUseCases and the like) is filled from its fields (useCases). The application
// knows nothing of fx.
var appModule = fx.Options(
	fx.Module("loans", fx.Provide(
		application.NewRegisterApplicationHandler, application.NewCancelApplicationHandler,
		application.NewVerifyApplicationHandler, application.NewIssueApplicationHandler,
		application.NewGetApplicationHandler, application.NewFindApplicationHandler,
		application.NewProcessApplicationHandler, application.NewGetLoanHandler,
		application.NewGetScheduleHandler, application.NewListPaymentsHandler,
		useCases[application.LoanUseCases](),
	)),
	fx.Module("transfers", fx.Provide(
		application.NewCreateTransferHandler, application.NewConfirmTransferHandler, application.NewGetTransferHandler,
		useCases[application.TransferUseCases](),
	)),
	fx.Module("repayments", fx.Provide(
		application.NewCheckRepaymentHandler, application.NewPayRepaymentHandler, application.NewGetRepaymentHandler,
		useCases[application.RepaymentUseCases](),
	)),
	fx.Module("cards", fx.Provide(
		application.NewOrderCardHandler, application.NewGetCardOrderHandler, application.NewProcessCardOrderHandler,
		application.NewGetCardHandler, application.NewChangeCardStatusHandler, application.NewAttachCardHandler,
		application.NewConfirmCardHandler,
		useCases[application.CardUseCases](),
	)),
	fx.Module("partners", fx.Provide(
		application.NewAuthenticateHandler, application.NewEnsurePartnerHandler, application.NewCreatePartnerHandler,
		application.NewListPartnersHandler, application.NewSetPartnerEnabledHandler, application.NewRotatePartnerKeyHandler,
		application.NewSetWebhookHandler, application.NewListEventsHandler, application.NewSendTestEventHandler,
		application.NewDeliverEventsHandler,
		useCases[application.PartnerUseCases](),
	)),
	fx.Module("operations", fx.Provide(
		application.NewReconcileHandler, application.NewCountUnknownOutcomesHandler, application.NewCheckLedgerHandler,
		application.NewReconcileDayHandler, application.NewPurgeExpiredHandler, application.NewCloseBooksHandler,
		application.NewTrialBalanceHandler, application.NewJournalHandler, application.NewSweepSessionsHandler,
		useCases[application.OperationUseCases](),
	)),
	// The sandbox clock is the sandbox's, absent outside it: its use cases then answer that
	// there is none.
	fx.Module("sandbox", fx.Provide(
		fx.Annotate(application.NewAdvanceClockHandler, fx.ParamTags(``, ``, `optional:"true"`)),
		fx.Annotate(application.NewResetSandboxHandler, fx.ParamTags(``, ``, `optional:"true"`)),
		application.NewCompleteVerificationHandler, application.NewReadSMSOutboxHandler,
		useCases[application.SandboxUseCases](),
	)),
	fx.Module("collections", fx.Provide(
		application.NewSettlePromisesHandler, application.NewSendRemindersHandler, application.NewSnapshotPARHandler,
		useCases[application.CollectionPasses](),
	)),
	fx.Provide(func(app application.App) *application.App { return &app }, useCases[application.App]()),
	// The operator console (application/console), its own product on the same ports; one
	// node's login throttles are shared by the login and the change of password.
	fx.Module("console", fx.Provide(
		appconsole.NewLoginThrottles,
		appconsole.NewCreateOperatorHandler, appconsole.NewListOperatorsHandler, appconsole.NewSetOperatorDisabledHandler,
		appconsole.NewResetOperatorPasswordHandler, appconsole.NewChangeOperatorRoleHandler, appconsole.NewDecideOperatorGrantHandler,
		appconsole.NewLogInHandler, appconsole.NewResumeSessionHandler, appconsole.NewLogOutHandler, appconsole.NewChangePasswordHandler,
		appconsole.NewBeginEnrolmentHandler, appconsole.NewEnrolSecondFactorHandler, appconsole.NewResetSecondFactorHandler,
		appconsole.NewSetLanguageHandler,
		useCases[appconsole.Operators](),
		appconsole.NewDashboardHandler, appconsole.NewSearchHandler, appconsole.NewListHandler,
		appconsole.NewReportsHandler, appconsole.NewBooksHandler, appconsole.NewClientHandler, appconsole.NewApplicationHandler,
		appconsole.NewLoanHandler, appconsole.NewPreviewLoanActionHandler, appconsole.NewReconciliationHandler,
		appconsole.NewLedgerHandler, appconsole.NewPartnersHandler, appconsole.NewObjectHandler,
		appconsole.NewAuditTrailHandler, appconsole.NewLastAuditVerificationHandler,
		useCases[appconsole.Views](),
		appconsole.NewAuditRefusalHandler, appconsole.NewVerifyAuditHandler, appconsole.NewCheckpointAuditHandler,
		appconsole.NewRetryStageHandler, appconsole.NewResendEventHandler, appconsole.NewVerificationHandler,
		appconsole.NewRevealClientDataHandler, appconsole.NewPartnerHandler, appconsole.NewProposeResolutionHandler,
		appconsole.NewDecideProposalHandler, appconsole.NewProposeBreakAcceptanceHandler, appconsole.NewProposeLoanActionHandler,
		appconsole.NewExplainBreakHandler, appconsole.NewProposeBreakReopeningHandler, appconsole.NewRunReconciliationHandler,
		useCases[appconsole.Actions](),
		appconsole.NewQueueHandler, appconsole.NewLoanWorkHandler, appconsole.NewCollectionsReportHandler,
		appconsole.NewAssignCollectorHandler, appconsole.NewLogContactHandler, appconsole.NewMakePromiseToPayHandler,
		appconsole.NewPreviewBulkRepaymentsHandler, appconsole.NewProposeBulkRepaymentsHandler, appconsole.NewBulkHandler,
		appconsole.NewPreviewBulkActionHandler, appconsole.NewProposeBulkActionHandler,
		useCases[appconsole.Collections](),
		useCases[appconsole.Console](),
	)),
)

// useCases provides T, a struct of use cases (a capability, or the App of every capability),
// from the graph: each field is asked of the graph by its type, as an fx.In struct's would be.
// The struct itself is the declaration, so it has no copy here. It is reflection, kept to this
// one function: fx asks no more of a provider than a function's parameters and results.
func useCases[T any]() any {
	t := reflect.TypeFor[T]()
	in := make([]reflect.Type, t.NumField())
	for i := range in {
		in[i] = t.Field(i).Type
	}
	return reflect.MakeFunc(reflect.FuncOf(in, []reflect.Type{t}, false), func(args []reflect.Value) []reflect.Value {
		v := reflect.New(t).Elem()
		for i, a := range args {
			v.Field(i).Set(a)
		}
		return []reflect.Value{v}
	}).Interface()
}
