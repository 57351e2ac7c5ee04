package application

import (
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CollectionsConfig is how the collectors' work is cut: the queues' buckets of days overdue,
// and when reminders go to borrowers.
type CollectionsConfig struct {
	Buckets   domain.Buckets
	Reminders domain.ReminderPolicy
}

// withDefaults fills what a test or the command line left out: the default buckets, reminders
// three days before a date and in each bucket, from 09:00 to 20:00, three a week.
func (c CollectionsConfig) withDefaults() CollectionsConfig {
	if len(c.Buckets) == 0 {
		c.Buckets, _ = domain.ParseBuckets(domain.DefaultBuckets)
	}
	if c.Reminders.To == 0 {
		c.Reminders = domain.ReminderPolicy{DaysBefore: 3, From: 9, To: 20, PerWeek: 3}
	}
	c.Reminders.Buckets = c.Buckets
	return c
}

// CollectionsDeps are the ports Collections needs.
type CollectionsDeps struct {
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

// Collections is the collectors' day (docs/console.md, "Collections"): the queues, the contact
// log, promises to pay, reminders, and the report.
type Collections struct {
	Queue          *ConsoleQueueHandler
	LoanWork       *ConsoleLoanWorkHandler
	Report         *CollectionsReportHandler
	Assign         *AssignCollectorHandler
	LogContact     *LogContactHandler
	PromiseToPay   *MakePromiseToPayHandler
	SettlePromises *SettlePromisesHandler
	SendReminders  *SendRemindersHandler
	SnapshotPAR    *SnapshotPARHandler
	// PreviewBulk and ProposeBulk take a file of manual repayments to one four-eyed proposal.
	PreviewBulk *PreviewBulkRepaymentsHandler
	ProposeBulk *ProposeBulkRepaymentsHandler
	Bulk        *ConsoleBulkHandler
	// PreviewBulkAction and ProposeBulkAction take a waiver or write-off of a queue's loans to
	// one four-eyed proposal.
	PreviewBulkAction *PreviewBulkActionHandler
	ProposeBulkAction *ProposeBulkActionHandler
}

// NewCollections builds the collections' use cases.
func NewCollections(d CollectionsDeps, cfg CollectionsConfig) Collections {
	cfg = cfg.withDefaults()
	preview := NewPreviewBulkRepaymentsHandler(d.Clock, d.Loans, d.Repayments)
	previewAction := NewPreviewBulkActionHandler(d.Clock, d.Collections, d.Loans, cfg.Buckets)
	return Collections{
		PreviewBulkAction: previewAction,
		ProposeBulkAction: NewProposeBulkActionHandler(d.Clock, d.UoW, previewAction, d.Bulk, d.Proposals, d.AuditLog),
		PreviewBulk:       preview,
		Bulk:              NewConsoleBulkHandler(d.Clock, d.Proposals, d.Bulk),
		ProposeBulk:       NewProposeBulkRepaymentsHandler(d.Clock, d.UoW, preview, d.Bulk, d.Proposals, d.AuditLog),
		Queue:             NewConsoleQueueHandler(d.Clock, d.Collections, d.Operators, cfg.Buckets),
		LoanWork:          NewConsoleLoanWorkHandler(d.Loans, d.Collections, d.Operators),
		Report:            NewCollectionsReportHandler(d.Clock, d.Collections, cfg.Buckets),
		Assign:            NewAssignCollectorHandler(d.Clock, d.UoW, d.Loans, d.Collections, d.Operators, d.AuditLog),
		LogContact:        NewLogContactHandler(d.Clock, d.UoW, d.Loans, d.Collections, d.AuditLog),
		PromiseToPay:      NewMakePromiseToPayHandler(d.Clock, d.UoW, d.Loans, d.Collections, d.AuditLog),
		SettlePromises:    NewSettlePromisesHandler(d.Clock, d.UoW, d.Collections),
		SendReminders:     NewSendRemindersHandler(d.Clock, d.UoW, d.Applications, d.Loans, d.Collections, d.Events, d.SMS, cfg.Reminders),
		SnapshotPAR:       NewSnapshotPARHandler(d.Clock, d.Collections, cfg.Buckets),
	}
}

// queueScopes are the partners' todays: all partners on the system time, then each partner whose
// sandbox clock is ahead of it.
func queueScopes(clock ports.Clock) []ports.QueueScope {
	ts := timeScopes(clock)
	out := make([]ports.QueueScope, len(ts))
	for i, s := range ts {
		out[i] = ports.QueueScope{Partners: s.partners, Today: domain.BusinessDate(s.now)}
	}
	return out
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
