package store

import (
	"context"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/domain"
)

// How every aggregate is written: inserted with the events it recorded, and updated under
// its row lock.

// createWithEvents inserts an aggregate's row m and the events it recorded, in one
// transaction.
func createWithEvents(ctx context.Context, db *DB, m any, agg any, unique constraintErrors) error {
	return db.inTx(ctx, func(ctx context.Context) error {
		if err := db.write(ctx, len(unique) == 0, func(g *gorm.DB) *gorm.DB { return g.Create(m) }, check(unique)); err != nil {
			return err
		}
		return insertEvents(ctx, db, takeEvents(agg))
	})
}

// stageRecorder is an aggregate that keeps a history of gateway attempts (an application).
type stageRecorder interface {
	TakeStageRecords() []domain.StageRecord
}

// insertStageRecords stores the attempts agg recorded, if it records them, in ctx's transaction.
func insertStageRecords(ctx context.Context, db *DB, agg any) error {
	src, ok := agg.(stageRecorder)
	if !ok {
		return nil
	}
	for _, s := range src.TakeStageRecords() {
		err := db.write(ctx, true, func(g *gorm.DB) *gorm.DB {
			return g.Exec("INSERT INTO application_steps (application_id, at, stage, outcome, message, ref) VALUES (?, ?, ?, ?, ?, ?)",
				s.ApplicationID, s.At.UTC(), s.Stage.String(), s.Outcome.String(), s.Message, s.Ref)
		}, check(nil))
		if err != nil {
			return err
		}
	}
	return nil
}

// lockedUpdate is the body of every repository's Update, in the caller's transaction (or one
// of its own): SELECT … FOR UPDATE of the row of model M with that id, the aggregate rebuilt,
// fn applied, the row saved, and the attempts and events the aggregate recorded inserted. An error from fn
// leaves the row unchanged.
func lockedUpdate[M any, A any](ctx context.Context, db *DB, id uuid.UUID, notFound error, unique constraintErrors,
	load func(*M) (A, error), save func(A) (*M, error), fn func(A) error) error {
	return db.inTx(ctx, func(ctx context.Context) error {
		var m M
		// SQLite drops the locking clause; its writers serialise on the immediate transaction.
		if err := db.conn(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).Take(&m).Error; err != nil {
			return interpretError(err, notFound, nil)
		}
		a, err := load(&m)
		if err != nil {
			return err
		}
		if err := fn(a); err != nil {
			return err
		}
		saved, err := save(a)
		if err != nil {
			return err
		}
		if err := db.write(ctx, len(unique) == 0, func(g *gorm.DB) *gorm.DB { return g.Select("*").Updates(saved) }, check(unique)); err != nil {
			return err
		}
		if err := insertStageRecords(ctx, db, a); err != nil {
			return err
		}
		return insertEvents(ctx, db, takeEvents(a))
	})
}
