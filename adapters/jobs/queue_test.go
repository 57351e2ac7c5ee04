package jobs_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/jobs"
	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/adapters/store/storetest"
)

// A job is written in the unit of work that makes its work due: it commits with it, goes
// with its rollback, and an application waiting for its job gets no second one. With no unit
// of work it is an error, not an insert of its own.
func TestJobsCommitAndRollBackWithTheirUnitOfWork(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := storetest.Open(t, d)
			jdb := jobs.Database{Pool: db.Pool, SQL: db.SQL, InPgxTx: store.WithPgxTx, SQLTx: store.SQLTx}
			if err := jobs.Migrate(ctx, jdb); err != nil {
				t.Fatal(err)
			}
			q, err := jobs.NewQueue(jdb)
			if err != nil {
				t.Fatal(err)
			}
			uow := store.NewUnitOfWork(db)
			kept, dropped := uuid.New(), uuid.New()
			errRefused := errors.New("refused")
			if err := uow.Do(ctx, func(ctx context.Context) error {
				if err := q.EnqueueApplications(ctx, dropped); err != nil {
					return err
				}
				return errRefused
			}); !errors.Is(err, errRefused) {
				t.Fatalf("rolled back unit of work: %v", err)
			}
			for range 2 {
				if err := uow.Do(ctx, func(ctx context.Context) error { return q.EnqueueApplications(ctx, kept) }); err != nil {
					t.Fatal(err)
				}
			}
			if err := q.EnqueueApplications(ctx, uuid.New()); !errors.Is(err, store.ErrNoTransaction) {
				t.Fatalf("outside a unit of work: %v, want store.ErrNoTransaction (no silent insert of its own)", err)
			}
			var rows []struct{ Args string }
			if err := db.Gorm.Raw("SELECT CAST(args AS TEXT) AS args FROM river_job WHERE kind = ?", "application.process").Scan(&rows).Error; err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || !strings.Contains(rows[0].Args, kept.String()) {
				t.Fatalf("%d jobs %q: want one, for %s, none for %s", len(rows), rows, kept, dropped)
			}
		})
	}
}
