package server

import (
	"reflect"

	"go.uber.org/fx"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/ports"
)

// appModule is the use cases, one fx module per capability. Each use case's constructor is
// given to fx as it is: its parameters are the only declaration of what it needs, so a port
// added to a use case is added in its constructor and nowhere here. A capability's struct
// (application.Loans and the like) is filled from its fields (useCases). The application
// knows nothing of fx.
var appModule = fx.Options(
	fx.Module("loans", fx.Provide(
		application.NewRegisterApplicationHandler, application.NewCancelApplicationHandler,
		application.NewVerifyApplicationHandler, application.NewIssueApplicationHandler,
		application.NewGetApplicationHandler, application.NewFindApplicationHandler,
		application.NewProcessApplicationHandler, application.NewGetLoanHandler,
		application.NewGetScheduleHandler, application.NewListPaymentsHandler,
		useCases[application.Loans](),
	)),
	fx.Module("transfers", fx.Provide(
		application.NewCreateTransferHandler, application.NewConfirmTransferHandler, application.NewGetTransferHandler,
		useCases[application.Transfers](),
	)),
	fx.Module("repayments", fx.Provide(
		application.NewCheckRepaymentHandler, application.NewPayRepaymentHandler, application.NewGetRepaymentHandler,
		useCases[application.Repayments](),
	)),
	fx.Module("cards", fx.Provide(
		application.NewOrderCardHandler, application.NewGetCardOrderHandler, application.NewProcessCardOrderHandler,
		application.NewGetCardHandler, application.NewChangeCardStatusHandler, application.NewAttachCardHandler,
		application.NewConfirmCardHandler,
		useCases[application.Cards](),
	)),
	fx.Module("partners", fx.Provide(
		application.NewAuthenticateHandler, application.NewEnsurePartnerHandler, application.NewCreatePartnerHandler,
		application.NewListPartnersHandler, application.NewSetPartnerEnabledHandler, application.NewRotatePartnerKeyHandler,
		application.NewSetWebhookHandler, application.NewListEventsHandler, application.NewSendTestEventHandler,
		application.NewDeliverEventsHandler,
		useCases[application.Partners](),
	)),
	fx.Module("operations", fx.Provide(
		application.NewReconcileHandler, application.NewCountUnknownOutcomesHandler, application.NewCheckLedgerHandler,
		application.NewReconcileDayHandler, application.NewPurgeExpiredHandler, application.NewCloseBooksHandler,
		application.NewTrialBalanceHandler, application.NewJournalHandler,
		useCases[application.Operations](),
	)),
	// The sandbox clock is the sandbox's, absent outside it: its use cases then answer that
	// there is none.
	fx.Module("sandbox", fx.Provide(
		fx.Annotate(application.NewAdvanceClockHandler, fx.ParamTags(``, ``, `optional:"true"`)),
		fx.Annotate(application.NewResetSandboxHandler, fx.ParamTags(``, ``, `optional:"true"`)),
		application.NewCompleteVerificationHandler, application.NewReadSMSOutboxHandler,
		useCases[application.Sandbox](),
	)),
	fx.Module("collections", fx.Provide(func(in collectionsIn, cfg application.Config) application.Collections {
		return application.NewCollections(application.CollectionsDeps{Clock: in.Clock, UoW: in.UoW, Applications: in.Applications,
			Loans: in.Loans, Collections: in.Collections, Operators: in.Operators, AuditLog: in.AuditLog, Events: in.Events, SMS: in.SMS,
			Repayments: in.Repayments, Bulk: in.Bulk, Proposals: in.Proposals},
			cfg.Collections)
	})),
	fx.Module("console", fx.Provide(func(in consoleIn, st storesIn, ops application.Operations, coll application.Collections,
		cfg application.Config) application.Console {
		c := application.NewConsole(application.ConsoleDeps{Clock: in.Clock, UoW: in.UoW, Queue: in.Queue, Sealer: in.Sealer,
			Stores: application.Stores{Applications: st.Applications, Loans: st.Loans, Partners: st.Partners, Ledger: st.Ledger,
				Transfers: st.Transfers, Repayments: st.Repayments, Cards: st.Cards, CardOrders: st.CardOrders, Reconciliation: st.Reconciliation,
				Bulk: st.Bulk},
			Console: application.ConsoleStores{Operators: in.Operators, SecondFactors: in.SecondFactors, AuditLog: in.AuditLog,
				Proposals: in.Proposals, BackOffice: in.BackOffice}, ReconcileDay: ops.ReconcileDay, Checkpoints: in.Checkpoints}, cfg)
		c.Collections = coll
		return c
	})),
	fx.Provide(func(app application.App) *application.App { return &app }, useCases[application.App]()),
)

type consoleIn struct {
	fx.In
	Clock         ports.Clock
	UoW           ports.UnitOfWork
	Queue         ports.WorkQueue
	Sealer        ports.Sealer
	Operators     ports.OperatorRepository
	SecondFactors ports.SecondFactorRepository
	AuditLog      ports.AuditLog
	Proposals     ports.ProposalRepository
	BackOffice    ports.BackOffice
	// Checkpoints sends the audit log's heads out of the database's reach.
	Checkpoints ports.AuditCheckpointSender
}

// storesIn are the aggregates' repositories, which the console reads across.
type storesIn struct {
	fx.In
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Partners     ports.PartnerRepository
	Ledger       ports.LedgerRepository
	Transfers    ports.TransferRepository
	Repayments   ports.RepaymentRepository
	Cards        ports.CardRepository
	CardOrders   ports.CardOrderRepository
	// Reconciliation keeps reconciliation's runs and breaks.
	Reconciliation ports.ReconciliationRepository
	// Bulk keeps the repayments files proposed at once.
	Bulk ports.BulkRepository
}

// collectionsIn are the ports the collectors' work needs.
type collectionsIn struct {
	fx.In
	Clock        ports.Clock
	UoW          ports.UnitOfWork
	Applications ports.ApplicationRepository
	Loans        ports.LoanRepository
	Collections  ports.CollectionsRepository
	Operators    ports.OperatorRepository
	AuditLog     ports.AuditLog
	Events       ports.EventOutbox
	SMS          ports.SMSSender
	Repayments   ports.RepaymentRepository
	Bulk         ports.BulkRepository
	Proposals    ports.ProposalRepository
}

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
