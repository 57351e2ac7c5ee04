package application

// CollectionPasses are the collectors' background passes (docs/console.md, "Collections"): promises
// to pay decided, reminders sent to borrowers, and the portfolio at risk snapshotted for the
// report. The collectors' own pages and actions are the console's.
type CollectionPasses struct {
	SettlePromises *SettlePromisesHandler
	SendReminders  *SendRemindersHandler
	SnapshotPAR    *SnapshotPARHandler
}
