package server

import (
	"fmt"
	"reflect"

	"go.uber.org/fx"

	"github.com/tiyin/tiyin/application"
	appconsole "github.com/tiyin/tiyin/application/console"
)

// appModule is the use cases, one fx module per capability. A use case's exported fields are
// the only declaration of what it needs, and the graph fills them (useCase), so a port added to
// a use case is added as its field and nowhere here; the few that derive something when built
// keep a constructor, given to fx as it is. A capability's struct (application.LoanUseCases and
// the like) is filled from its fields too (useCases). The application knows nothing of fx.
var appModule = fx.Options(
	// What several use cases share: a request's transaction and idempotency store, the
	// transfers' settlement, and the console's audit trail.
	fx.Provide(useCases[application.Requests](), useCases[application.TransferSettlement](), useCases[appconsole.Audit]()),
	fx.Module("loans", fx.Provide(
		useCase[application.RegisterApplicationHandler](), application.NewCancelApplicationHandler,
		application.NewVerifyApplicationHandler, application.NewIssueApplicationHandler,
		useCase[application.GetApplicationHandler](), useCase[application.FindApplicationHandler](),
		application.NewProcessApplicationHandler, useCase[application.GetLoanHandler](),
		useCase[application.GetScheduleHandler](), useCase[application.ListPaymentsHandler](),
		useCases[application.LoanUseCases](),
	)),
	fx.Module("transfers", fx.Provide(
		useCase[application.CreateTransferHandler](), useCase[application.ConfirmTransferHandler](), useCase[application.GetTransferHandler](),
		useCases[application.TransferUseCases](),
	)),
	fx.Module("repayments", fx.Provide(
		useCase[application.CheckRepaymentHandler](), useCase[application.PayRepaymentHandler](), useCase[application.GetRepaymentHandler](),
		useCases[application.RepaymentUseCases](),
	)),
	fx.Module("cards", fx.Provide(
		useCase[application.OrderCardHandler](), useCase[application.GetCardOrderHandler](), application.NewProcessCardOrderHandler,
		useCase[application.GetCardHandler](), useCase[application.ChangeCardStatusHandler](), application.NewAttachCardHandler,
		useCase[application.ConfirmCardHandler](),
		useCases[application.CardUseCases](),
	)),
	fx.Module("partners", fx.Provide(
		application.NewAuthenticateHandler, useCase[application.EnsurePartnerHandler](), useCase[application.CreatePartnerHandler](),
		useCase[application.ListPartnersHandler](), useCase[application.SetPartnerEnabledHandler](), useCase[application.RotatePartnerKeyHandler](),
		useCase[application.SetWebhookHandler](), useCase[application.ListEventsHandler](), useCase[application.SendTestEventHandler](),
		application.NewDeliverEventsHandler,
		useCases[application.PartnerUseCases](),
	)),
	fx.Module("operations", fx.Provide(
		useCase[application.ReconcileHandler](), useCase[application.CountUnknownOutcomesHandler](), useCase[application.CheckLedgerHandler](),
		useCase[application.ReconcileDayHandler](), useCase[application.PurgeExpiredHandler](), useCase[application.CloseBooksHandler](),
		useCase[application.TrialBalanceHandler](), useCase[application.JournalHandler](), useCase[application.SweepSessionsHandler](),
		useCases[application.OperationUseCases](),
	)),
	// The sandbox clock is the sandbox's, absent outside it: its use cases then answer that
	// there is none.
	fx.Module("sandbox", fx.Provide(
		fx.Annotate(application.NewAdvanceClockHandler, fx.ParamTags(``, ``, `optional:"true"`)),
		fx.Annotate(application.NewResetSandboxHandler, fx.ParamTags(``, ``, `optional:"true"`)),
		application.NewCompleteVerificationHandler, useCase[application.ReadSMSOutboxHandler](),
		useCases[application.SandboxUseCases](),
	)),
	fx.Module("collections", fx.Provide(
		useCase[application.SettlePromisesHandler](), application.NewSendRemindersHandler, application.NewSnapshotPARHandler,
		useCases[application.CollectionPasses](),
	)),
	fx.Provide(func(app application.App) *application.App { return &app }, useCases[application.App]()),
	// The operator console (application/console), its own product on the same ports; one
	// node's login throttles are shared by the login and the change of password.
	fx.Module("console", fx.Provide(
		appconsole.NewLoginThrottles,
		useCase[appconsole.CreateOperatorHandler](), useCase[appconsole.ListOperatorsHandler](), useCase[appconsole.SetOperatorDisabledHandler](),
		useCase[appconsole.ResetOperatorPasswordHandler](), useCase[appconsole.ChangeOperatorRoleHandler](), useCase[appconsole.DecideOperatorGrantHandler](),
		useCase[appconsole.LogInHandler](), useCase[appconsole.ResumeSessionHandler](), useCase[appconsole.LogOutHandler](), useCase[appconsole.ChangePasswordHandler](),
		useCase[appconsole.BeginEnrolmentHandler](), useCase[appconsole.EnrolSecondFactorHandler](), useCase[appconsole.ResetSecondFactorHandler](),
		useCase[appconsole.SetLanguageHandler](),
		useCases[appconsole.Operators](),
		useCase[appconsole.DashboardHandler](), useCase[appconsole.SearchHandler](), useCase[appconsole.ListHandler](),
		useCase[appconsole.ReportsHandler](), appconsole.NewBooksHandler, useCase[appconsole.ClientHandler](), useCase[appconsole.ApplicationHandler](),
		useCase[appconsole.LoanHandler](), useCase[appconsole.PreviewLoanActionHandler](), useCase[appconsole.ReconciliationHandler](),
		useCase[appconsole.LedgerHandler](), useCase[appconsole.PartnersHandler](), useCase[appconsole.ObjectHandler](),
		useCase[appconsole.AuditTrailHandler](), useCase[appconsole.LastAuditVerificationHandler](),
		useCases[appconsole.Views](),
		useCase[appconsole.AuditRefusalHandler](), useCase[appconsole.VerifyAuditHandler](), useCase[appconsole.CheckpointAuditHandler](),
		useCase[appconsole.RetryStageHandler](), useCase[appconsole.ResendEventHandler](), useCase[appconsole.VerificationHandler](),
		useCase[appconsole.RevealClientDataHandler](), useCase[appconsole.PartnerHandler](), useCase[appconsole.ProposeResolutionHandler](),
		appconsole.NewDecideProposalHandler, useCase[appconsole.ProposeBreakAcceptanceHandler](), useCase[appconsole.ProposeLoanActionHandler](),
		useCase[appconsole.ExplainBreakHandler](), useCase[appconsole.ProposeBreakReopeningHandler](), useCase[appconsole.RunReconciliationHandler](),
		useCases[appconsole.Actions](),
		appconsole.NewQueueHandler, useCase[appconsole.LoanWorkHandler](), appconsole.NewCollectionsReportHandler,
		useCase[appconsole.AssignCollectorHandler](), useCase[appconsole.LogContactHandler](), useCase[appconsole.MakePromiseToPayHandler](),
		useCase[appconsole.PreviewBulkRepaymentsHandler](), useCase[appconsole.ProposeBulkRepaymentsHandler](), useCase[appconsole.BulkHandler](),
		appconsole.NewPreviewBulkActionHandler, useCase[appconsole.ProposeBulkActionHandler](),
		useCases[appconsole.Collections](),
		useCases[appconsole.Console](),
	)),
)

// useCases provides T, a struct of use cases (a capability, or the App of every capability),
// from the graph; useCase provides *T, a use case whose exported fields are the ports and
// settings it needs. Each field is asked of the graph by its type, as an fx.In struct's would
// be: the struct itself is the declaration, so it has no copy here and no constructor in the
// application. It is reflection, kept to this one place: fx asks no more of a provider than a
// function's parameters and results. A struct with an unexported field cannot be filled, and
// says so when the module is built.
func useCases[T any]() any { return filled[T](false) }

func useCase[T any]() any { return filled[T](true) }

func filled[T any](pointer bool) any {
	t := reflect.TypeFor[T]()
	in := make([]reflect.Type, t.NumField())
	for i := range in {
		if f := t.Field(i); !f.IsExported() {
			panic(fmt.Sprintf("server: %s's field %s is not exported, so the graph cannot fill it", t, f.Name))
		}
		in[i] = t.Field(i).Type
	}
	out := t
	if pointer {
		out = reflect.PointerTo(t)
	}
	return reflect.MakeFunc(reflect.FuncOf(in, []reflect.Type{out}, false), func(args []reflect.Value) []reflect.Value {
		v := reflect.New(t)
		for i, a := range args {
			v.Elem().Field(i).Set(a)
		}
		if pointer {
			return []reflect.Value{v}
		}
		return []reflect.Value{v.Elem()}
	}).Interface()
}
