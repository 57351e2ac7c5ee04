// Package jobs runs tiyin's background work on River: the application worker that drives the
// microloan stages, and the periodic reconciler that re-enqueues due work whose job was lost.
// River shares the database with the repositories (the pgx pool on PostgreSQL, the single
// connection on SQLite).
package jobs

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	"go.uber.org/zap"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/ports"
)

// Config tunes the job runner.
type Config struct {
	// Workers is how many jobs run at once.
	Workers int
	// ReconcileEvery is the period of the reconciler.
	ReconcileEvery time.Duration
	// PollInterval is how often a node looks for new jobs when the database cannot notify
	// it (SQLite).
	PollInterval time.Duration
	// IdempotencyTTL is how long answers of state-changing requests are kept.
	IdempotencyTTL time.Duration
}

// waitingStates keep a job unique while it waits or runs; a completed job does not block the
// next one for the same application.
var waitingStates = []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStatePending,
	rivertype.JobStateRunning, rivertype.JobStateScheduled, rivertype.JobStateRetryable}

// ApplicationArgs asks for an application's due stages to be run.
type ApplicationArgs struct {
	ApplicationID uuid.UUID `json:"application_id"`
}

// Kind implements river.JobArgs.
func (ApplicationArgs) Kind() string { return "application.process" }

// InsertOpts makes the job unique per application while one waits or runs.
func (ApplicationArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 50, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: waitingStates}}
}

// ReconcileArgs is the periodic reconciler's job.
type ReconcileArgs struct{}

// Kind implements river.JobArgs.
func (ReconcileArgs) Kind() string { return "reconcile" }

// InsertOpts keeps at most one reconciler waiting or running.
func (ReconcileArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByArgs: true, ByState: waitingStates}}
}

type applicationWorker struct {
	river.WorkerDefaults[ApplicationArgs]
	app *application.App
}

// maxSnooze is the longest wait a job sleeps through itself (a pending answer's poll). Longer
// waits (retry backoffs) end the job; the reconciler enqueues the work again when the Clock
// says it is due, so moving the sandbox clock forward also shortens them.
const maxSnooze = 3 * time.Second

func (w *applicationWorker) Work(ctx context.Context, job *river.Job[ApplicationArgs]) error {
	next, err := w.app.ProcessApplication.Handle(ctx, job.Args.ApplicationID)
	if err != nil {
		return err
	}
	if next > 0 && next <= maxSnooze {
		return river.JobSnooze(next)
	}
	return nil
}

func (w *applicationWorker) Timeout(*river.Job[ApplicationArgs]) time.Duration {
	return 5 * time.Minute
}

type reconcileWorker struct {
	river.WorkerDefaults[ReconcileArgs]
	app  *application.App
	idem ports.IdempotencyStore
	ttl  time.Duration
	log  *zap.Logger
}

func (w *reconcileWorker) Work(ctx context.Context, _ *river.Job[ReconcileArgs]) error {
	rep, err := w.app.Reconcile.Handle(ctx)
	if rep.Expired+rep.Verified > 0 {
		w.log.Info("reconciled", zap.Int("enqueued", rep.Enqueued), zap.Int("expired", rep.Expired), zap.Int("verified", rep.Verified))
	}
	if err != nil {
		return err
	}
	if w.ttl > 0 {
		_, err = w.idem.Purge(ctx, time.Now().Add(-w.ttl))
	}
	return err
}

// client is what the runner needs of a River client, whatever its driver.
type client interface {
	Insert(ctx context.Context, args river.JobArgs, opts *river.InsertOpts) (*rivertype.JobInsertResult, error)
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// Runner owns the River client: it enqueues work (ports.WorkQueue) and runs the workers.
type Runner struct {
	c client
}

// Queue is what use cases enqueue through before the runner exists; it breaks the cycle
// "use cases need a queue, the queue's workers need the use cases".
type Queue struct {
	runner *Runner
}

// EnqueueApplication implements ports.WorkQueue.
func (q *Queue) EnqueueApplication(ctx context.Context, id uuid.UUID) error {
	if q.runner == nil {
		return fmt.Errorf("job runner not started")
	}
	_, err := q.runner.c.Insert(ctx, ApplicationArgs{ApplicationID: id}, nil)
	return err
}

// NewRunner builds the River client on db with the workers bound to app, and connects q to it.
func NewRunner(db *store.DB, app *application.App, idem ports.IdempotencyStore, q *Queue, cfg Config, log *zap.Logger) (*Runner, error) {
	workers := river.NewWorkers()
	river.AddWorker(workers, &applicationWorker{app: app})
	river.AddWorker(workers, &reconcileWorker{app: app, idem: idem, ttl: cfg.IdempotencyTTL, log: log})
	rc := &river.Config{
		Queues:  map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: max(cfg.Workers, 1)}},
		Workers: workers,
		PeriodicJobs: []*river.PeriodicJob{river.NewPeriodicJob(
			river.PeriodicInterval(max(cfg.ReconcileEvery, 100*time.Millisecond)),
			func() (river.JobArgs, *river.InsertOpts) { return ReconcileArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true},
		)},
		FetchPollInterval:           max(cfg.PollInterval, 50*time.Millisecond),
		FetchCooldown:               20 * time.Millisecond,
		CompletedJobRetentionPeriod: time.Hour,
		Logger:                      slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	var (
		c   client
		err error
	)
	if db.Dialect == store.Postgres {
		c, err = river.NewClient(riverpgxv5.New(db.Pool), rc)
	} else {
		c, err = river.NewClient(riversqlite.New(db.SQL), rc)
	}
	if err != nil {
		return nil, err
	}
	r := &Runner{c: c}
	q.runner = r
	return r, nil
}

// Start starts the workers.
func (r *Runner) Start(ctx context.Context) error { return r.c.Start(ctx) }

// Stop waits for running jobs to finish, until ctx ends.
func (r *Runner) Stop(ctx context.Context) error { return r.c.Stop(ctx) }

// Migrate applies River's own schema.
func Migrate(ctx context.Context, db *store.DB) error {
	var err error
	if db.Dialect == store.Postgres {
		m, merr := rivermigrate.New(riverpgxv5.New(db.Pool), nil)
		if merr != nil {
			return merr
		}
		_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	} else {
		m, merr := rivermigrate.New(riversqlite.New(db.SQL), nil)
		if merr != nil {
			return merr
		}
		_, err = m.Migrate(ctx, rivermigrate.DirectionUp, nil)
	}
	if err != nil {
		return fmt.Errorf("apply job queue migrations: %w", err)
	}
	return nil
}

var _ ports.WorkQueue = (*Queue)(nil)
