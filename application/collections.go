package application

import (
	"github.com/tiyin/tiyin/ports"
)

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
