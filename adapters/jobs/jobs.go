// Package jobs runs tiyin's background work on River: the application worker that drives the
// microloan stages, and the periodic reconciler that re-enqueues due work whose job was lost.
// River shares the database with the repositories (the pgx pool on PostgreSQL, the single
// connection on SQLite).
package jobs

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/riverqueue/river/rivertype"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/tiyin/tiyin/adapters/observe"
	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
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
	// CollectionsEvery is the period of the collections pass (1 minute when 0).
	CollectionsEvery time.Duration
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

// InsertOpts makes the reconciler unique per period (see periodicOpts).
func (ReconcileArgs) InsertOpts() river.InsertOpts { return periodicOpts }

// periodicOpts make a periodic job unique per second rather than while one waits or runs: a
// pass whose process was killed stays "running" until River rescues it, and must not hold up
// the passes after it. Passes that overlap are safe: each claims or locks what it works on.
var periodicOpts = river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: time.Second}}

// ReconcileDayArgs is the daily reconciliation of a closed business day (docs/reconciliation.md):
// enqueued every hour for the day before, unique per day, so the nodes that enqueue it run it
// about once a day. It runs the day whatever ran it before (an officer's "Reconcile now", the
// command): a run of a day again records only what is new.
type ReconcileDayArgs struct {
	Day string `json:"day"` // YYYY-MM-DD, Asia/Tashkent
}

// Kind implements river.JobArgs.
func (ReconcileDayArgs) Kind() string { return "reconcile.day" }

// InsertOpts makes the day's job unique for a day.
func (ReconcileDayArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 24, UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: 24 * time.Hour}}
}

type reconcileDayWorker struct {
	river.WorkerDefaults[ReconcileDayArgs]
	app     *application.App
	log     *zap.Logger
	metrics *observe.Metrics
}

// Work reconciles the day with each source; one that cannot give its statement or balances
// fails the job, which River retries (the sources reconciled before it record nothing new).
func (w *reconcileDayWorker) Work(ctx context.Context, job *river.Job[ReconcileDayArgs]) error {
	day, err := time.Parse(time.DateOnly, job.Args.Day)
	if err != nil {
		return river.JobCancel(err)
	}
	for _, n := range application.ReconciliationSources() {
		r, err := w.app.Operations.ReconcileDay.Handle(ctx, application.ReconcileDay{Day: day, Source: n})
		if err != nil {
			return err
		}
		w.log.Info("reconciled", zap.String("day", job.Args.Day), zap.String("source", n), zap.Int("matched", r.Matched),
			zap.Int("breaks", len(r.Found)), zap.Int("new_breaks", r.New))
	}
	ages, err := w.app.Operations.ReconcileDay.OpenBreaks(ctx)
	if err != nil {
		return err
	}
	w.metrics.OpenBreaks(ages)
	return nil
}

// closedDay is the business day before now's, the last one closed.
func closedDay() ReconcileDayArgs {
	return ReconcileDayArgs{Day: domain.BusinessDate(time.Now()).AddDate(0, 0, -1).Format(time.DateOnly)}
}

// DeliverEventsArgs is the periodic job that delivers due events to partners' webhooks.
type DeliverEventsArgs struct{}

// Kind implements river.JobArgs.
func (DeliverEventsArgs) Kind() string { return "events.deliver" }

// InsertOpts makes the delivery pass unique per period (see periodicOpts).
func (DeliverEventsArgs) InsertOpts() river.InsertOpts { return periodicOpts }

type deliverEventsWorker struct {
	river.WorkerDefaults[DeliverEventsArgs]
	app     *application.App
	log     *zap.Logger
	metrics *observe.Metrics
}

func (w *deliverEventsWorker) Work(ctx context.Context, _ *river.Job[DeliverEventsArgs]) error {
	rep, err := w.app.Partners.DeliverEvents.Handle(ctx)
	w.metrics.Webhooks(rep.Delivered, rep.Failed, rep.GivenUp)
	if rep.Failed+rep.GivenUp > 0 {
		w.log.Warn("webhook deliveries failed", zap.Int("delivered", rep.Delivered), zap.Int("failed", rep.Failed),
			zap.Int("given_up", rep.GivenUp))
	}
	return err
}

// CloseBooksArgs is the books' close (docs/accounting.md): enqueued every minute, unique for
// the minute across the nodes, it closes each time scope through its yesterday; a scope whose
// yesterday is closed costs one read. A close stopped part way (a node killed, its timeout) is
// taken up by the next minute's: the loans it closed stay closed.
type CloseBooksArgs struct{}

// Kind implements river.JobArgs.
func (CloseBooksArgs) Kind() string { return "books.close" }

// InsertOpts makes the close unique per minute; one attempt: the next minute's is the retry.
func (CloseBooksArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByArgs: true, ByPeriod: time.Minute}}
}

type closeBooksWorker struct {
	river.WorkerDefaults[CloseBooksArgs]
	app *application.App
	log *zap.Logger
}

// Timeout lets a close of many loans run: it commits each batch as it goes.
func (w *closeBooksWorker) Timeout(*river.Job[CloseBooksArgs]) time.Duration { return time.Hour }

func (w *closeBooksWorker) Work(ctx context.Context, _ *river.Job[CloseBooksArgs]) error {
	done, err := w.app.Operations.CloseBooks.CloseAndProve(ctx, time.Time{})
	for _, s := range done.Scopes {
		w.log.Info("books closed", zap.String("scope", s.Scope), zap.String("through", s.Through.Format(time.DateOnly)),
			zap.Int("loans", s.Loans), zap.Int("postings", s.Postings), zap.Duration("took", s.Duration))
	}
	for _, p := range done.Proofs { // recorded as breaks, for the console's reconciliation page
		if n := p.Found(); n > 0 {
			w.log.Warn("books proof found breaks", zap.String("day", p.Day.Format(time.DateOnly)), zap.Int("breaks", n),
				zap.Int("new", p.New))
		}
	}
	return err
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
	next, err := w.app.Loans.ProcessApplication.Handle(ctx, job.Args.ApplicationID)
	if err != nil {
		return err
	}
	if next > 0 && next <= maxSnooze {
		return river.JobSnooze(next)
	}
	return nil
}

func (w *applicationWorker) Timeout(*river.Job[ApplicationArgs]) time.Duration {
	return jobTimeout
}

// jobTimeout bounds every job (a run makes a few gateway calls of TIYIN_GATEWAY_TIMEOUT each,
// and a call that times out ends the run with a retry later); rescueAfter is when a job still
// marked running is taken for lost: its process died. A lost job holds its application's
// uniqueness until then, so it is kept short: an application whose worker was killed moves on
// within about 45 s (the crash harness, test/crash, measures it).
const (
	jobTimeout  = 30 * time.Second
	rescueAfter = 45 * time.Second
)

type reconcileWorker struct {
	river.WorkerDefaults[ReconcileArgs]
	app     *application.App
	ttl     time.Duration
	log     *zap.Logger
	metrics *observe.Metrics
	// counted is when unknown outcomes were last counted, swept when expired console sessions
	// were last deleted (Unix nanoseconds).
	counted, swept atomic.Int64
}

// sweepEvery spaces the deletions of expired console sessions.
const sweepEvery = time.Minute

// sweepSessions deletes the console sessions that expired, at most once every sweepEvery.
func (w *reconcileWorker) sweepSessions(ctx context.Context) error {
	last, now := w.swept.Load(), time.Now()
	if now.Sub(time.Unix(0, last)) < sweepEvery || !w.swept.CompareAndSwap(last, now.UnixNano()) || w.app.Operations.SweepSessions == nil {
		return nil
	}
	n, err := w.app.Operations.SweepSessions.Handle(ctx)
	if n > 0 {
		w.log.Info("expired console sessions deleted", zap.Int64("sessions", n))
	}
	return err
}

// unknownCountEvery spaces the counts of unknown outcomes: the gauge is of outcomes unknown for
// ten minutes, so a count a minute old tells the same, for one pass in sixty.
const unknownCountEvery = time.Minute

// countUnknownOutcomes sets the gauge of unknown outcomes, at most once every unknownCountEvery.
func (w *reconcileWorker) countUnknownOutcomes(ctx context.Context) error {
	last, now := w.counted.Load(), time.Now()
	if now.Sub(time.Unix(0, last)) < unknownCountEvery || !w.counted.CompareAndSwap(last, now.UnixNano()) {
		return nil
	}
	unknown, err := w.app.Operations.CountUnknownOutcomes.Handle(ctx)
	if err != nil {
		return err
	}
	w.metrics.UnknownOutcomes(unknown.Applications, unknown.Transfers, unknown.CardOrders)
	return nil
}

func (w *reconcileWorker) Work(ctx context.Context, _ *river.Job[ReconcileArgs]) error {
	rep, err := w.app.Operations.Reconcile.Handle(ctx)
	if rep.Expired+rep.Verified > 0 {
		w.log.Info("reconciled", zap.Int("enqueued", rep.Enqueued), zap.Int("expired", rep.Expired), zap.Int("verified", rep.Verified))
	}
	if err != nil {
		return err
	}
	if err := w.countUnknownOutcomes(ctx); err != nil {
		return err
	}
	if err := w.sweepSessions(ctx); err != nil {
		return err
	}
	_, err = w.app.Operations.PurgeExpired.Handle(ctx, application.PurgeExpired{IdempotencyTTL: w.ttl})
	return err
}

// client is what the runner needs of a River client, whatever its driver.
type client interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
}

// Database is the database River shares with the repositories. Package server makes it of the
// store's (store.DB), so that this adapter imports no other.
type Database struct {
	// Pool is the PostgreSQL pool; nil on SQLite.
	Pool *pgxpool.Pool
	// SQL is the SQLite database, used when Pool is nil.
	SQL *sql.DB
	// InPgxTx runs fn on the PostgreSQL transaction a unit of work's context carries, an error
	// outside one (store.WithPgxTx).
	InPgxTx func(ctx context.Context, fn func(tx pgx.Tx) error) error
	// SQLTx is the SQLite transaction a unit of work's context carries, an error outside one
	// (store.SQLTx).
	SQLTx func(ctx context.Context) (*sql.Tx, error)
}

// Runner owns the River client that runs the workers.
type Runner struct {
	c client
}

// Queue implements ports.WorkQueue with River's InsertTx: a job is written in the transaction
// that makes its work due, so the two commit together or not at all. It has an insert-only
// River client of its own, which breaks the cycle "use cases need a queue, the queue's
// workers need the use cases".
type Queue struct {
	insert func(ctx context.Context, params []river.InsertManyParams) error
}

// NewQueue returns the queue on db.
func NewQueue(db Database) (*Queue, error) {
	if db.Pool != nil {
		c, err := river.NewClient(riverpgxv5.New(db.Pool), &river.Config{})
		return &Queue{insert: func(ctx context.Context, params []river.InsertManyParams) error {
			return db.InPgxTx(ctx, func(tx pgx.Tx) error {
				_, err := c.InsertManyTx(ctx, tx, params)
				return err
			})
		}}, err
	}
	c, err := river.NewClient(riversqlite.New(db.SQL), &river.Config{})
	return &Queue{insert: func(ctx context.Context, params []river.InsertManyParams) error {
		tx, err := db.SQLTx(ctx)
		if err != nil {
			return err
		}
		_, err = c.InsertManyTx(ctx, tx, params)
		return err
	}}, err
}

// EnqueueApplications implements ports.WorkQueue.
func (q *Queue) EnqueueApplications(ctx context.Context, ids ...uuid.UUID) error {
	if len(ids) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: ApplicationArgs{ApplicationID: id}}
	}
	return q.insert(ctx, params)
}

// riverLevels passes River's log records on with its information lowered to debug: at info,
// the log shows River's warnings and errors only, as it does tiyin's own workers' news.
type riverLevels struct{ slog.Handler }

func lower(l slog.Level) slog.Level {
	if l == slog.LevelInfo {
		return slog.LevelDebug
	}
	return l
}

func (h riverLevels) Enabled(ctx context.Context, l slog.Level) bool {
	return h.Handler.Enabled(ctx, lower(l))
}

func (h riverLevels) Handle(ctx context.Context, r slog.Record) error {
	r.Level = lower(r.Level)
	return h.Handler.Handle(ctx, r)
}

func (h riverLevels) WithAttrs(as []slog.Attr) slog.Handler {
	return riverLevels{h.Handler.WithAttrs(as)}
}

func (h riverLevels) WithGroup(name string) slog.Handler {
	return riverLevels{h.Handler.WithGroup(name)}
}

// NewRunner builds the River client on db with the workers bound to app.
func NewRunner(db Database, app *application.App, cfg Config,
	log *zap.Logger, metrics *observe.Metrics) (*Runner, error) {
	workers := river.NewWorkers()
	river.AddWorker(workers, &applicationWorker{app: app})
	river.AddWorker(workers, &reconcileWorker{app: app, ttl: cfg.IdempotencyTTL, log: log, metrics: metrics})
	river.AddWorker(workers, &deliverEventsWorker{app: app, log: log, metrics: metrics})
	river.AddWorker(workers, &reconcileDayWorker{app: app, log: log, metrics: metrics})
	river.AddWorker(workers, &closeBooksWorker{app: app, log: log})
	river.AddWorker(workers, &collectionsWorker{app: app, log: log})
	every := river.PeriodicInterval(max(cfg.ReconcileEvery, 100*time.Millisecond))
	rc := &river.Config{
		Queues:  map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: max(cfg.Workers, 1)}},
		Workers: workers,
		PeriodicJobs: []*river.PeriodicJob{
			river.NewPeriodicJob(every, func() (river.JobArgs, *river.InsertOpts) { return ReconcileArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(every, func() (river.JobArgs, *river.InsertOpts) { return DeliverEventsArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(time.Hour), func() (river.JobArgs, *river.InsertOpts) { return closedDay(), nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(time.Minute), func() (river.JobArgs, *river.InsertOpts) { return CloseBooksArgs{}, nil },
				&river.PeriodicJobOpts{RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(cmp.Or(cfg.CollectionsEvery, time.Minute)),
				func() (river.JobArgs, *river.InsertOpts) { return CollectionsArgs{}, nil }, &river.PeriodicJobOpts{RunOnStart: true}),
		},
		FetchPollInterval:           max(cfg.PollInterval, 50*time.Millisecond),
		FetchCooldown:               20 * time.Millisecond,
		CompletedJobRetentionPeriod: time.Hour,
		JobTimeout:                  jobTimeout,
		RescueStuckJobsAfter:        rescueAfter,
		Middleware:                  []rivertype.Middleware{&measure{m: metrics}},
		// River's own lines come out as the rest: zap's JSON, named river, its information
		// about its own machinery (started, stopped, job counts) at debug.
		Logger: slog.New(riverLevels{zapslog.NewHandler(log.Core(), zapslog.WithName("river"))}),
	}
	var (
		c   client
		err error
	)
	if db.Pool != nil {
		c, err = river.NewClient(riverpgxv5.New(db.Pool), rc)
	} else {
		c, err = river.NewClient(riversqlite.New(db.SQL), rc)
	}
	if err != nil {
		return nil, err
	}
	return &Runner{c: c}, nil
}

// Start starts the workers.
func (r *Runner) Start(ctx context.Context) error { return r.c.Start(ctx) }

// Stop waits for running jobs to finish, until ctx ends.
func (r *Runner) Stop(ctx context.Context) error { return r.c.Stop(ctx) }

// Migrate applies River's own schema.
func Migrate(ctx context.Context, db Database) error {
	var err error
	if db.Pool != nil {
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
