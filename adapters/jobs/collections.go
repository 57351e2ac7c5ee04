package jobs

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"go.uber.org/zap"

	"github.com/tiyin/tiyin/application"
)

// CollectionsArgs is the periodic pass of collections: promises to pay decided on their
// partners' clocks, reminders sent to borrowers, and the day's portfolio at risk snapshotted.
type CollectionsArgs struct{}

// Kind implements river.JobArgs.
func (CollectionsArgs) Kind() string { return "collections" }

// InsertOpts makes the pass unique per period (see periodicOpts).
func (CollectionsArgs) InsertOpts() river.InsertOpts { return periodicOpts }

type collectionsWorker struct {
	river.WorkerDefaults[CollectionsArgs]
	app *application.App
	log *zap.Logger
	// snapped is when the PAR snapshot was last taken (Unix nanoseconds).
	snapped atomic.Int64
}

// snapshotEvery spaces the PAR snapshots: the day's row is taken again at most once an hour, so
// the last one of a day stands for it.
const snapshotEvery = time.Hour

// Work decides promises first (a payment that kept one is seen before a reminder would go),
// then sends the reminders, then snapshots PAR when it is due.
func (w *collectionsWorker) Work(ctx context.Context, _ *river.Job[CollectionsArgs]) error {
	c := w.app.Collections
	if c.SettlePromises == nil {
		return nil
	}
	p, err := c.SettlePromises.Handle(ctx)
	if p.Kept+p.Broken > 0 {
		w.log.Info("promises to pay decided", zap.Int("kept", p.Kept), zap.Int("broken", p.Broken))
	}
	if err != nil {
		return err
	}
	r, err := c.SendReminders.Handle(ctx)
	if r.Sent+r.Failed > 0 {
		w.log.Info("reminders sent", zap.Int("sent", r.Sent), zap.Int("failed", r.Failed))
	}
	if err != nil {
		return err
	}
	last, now := w.snapped.Load(), time.Now()
	if now.Sub(time.Unix(0, last)) < snapshotEvery || !w.snapped.CompareAndSwap(last, now.UnixNano()) {
		return nil
	}
	return c.SnapshotPAR.Handle(ctx)
}
