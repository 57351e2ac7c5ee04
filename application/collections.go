package application

import (
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CollectionsConfig is how the collectors' work is cut: the queues' buckets of days overdue,
// and when reminders go to borrowers.
type CollectionsConfig struct {
	Buckets   domain.Buckets
	Reminders domain.ReminderPolicy
}

// WithDefaults fills what a test or the command line left out: the default buckets, reminders
// three days before a date and in each bucket, from 09:00 to 20:00, three a week.
func (c CollectionsConfig) WithDefaults() CollectionsConfig {
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
	Events       ports.EventOutbox
	SMS          ports.SMSSender
}

// Collections are the collectors' background passes (docs/console.md, "Collections"): promises
// to pay decided, reminders sent to borrowers, and the portfolio at risk snapshotted for the
// report. The collectors' own pages and actions are the console's.
type Collections struct {
	SettlePromises *SettlePromisesHandler
	SendReminders  *SendRemindersHandler
	SnapshotPAR    *SnapshotPARHandler
}

// NewCollections builds the collections' background passes.
func NewCollections(d CollectionsDeps, cfg CollectionsConfig) Collections {
	cfg = cfg.WithDefaults()
	return Collections{
		SettlePromises: NewSettlePromisesHandler(d.Clock, d.UoW, d.Collections),
		SendReminders:  NewSendRemindersHandler(d.Clock, d.UoW, d.Applications, d.Loans, d.Collections, d.Events, d.SMS, cfg.Reminders),
		SnapshotPAR:    NewSnapshotPARHandler(d.Clock, d.Collections, cfg.Buckets),
	}
}
