package store

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/ports"
)

// SandboxClock implements ports.SandboxClock: the system time plus one offset for the whole
// service, kept in the database. Each node refreshes its copy of the offset every second, so a
// multi-node sandbox agrees on the time, and a restart keeps it.
type SandboxClock struct {
	db     *DB
	offset atomic.Int64
}

type clockModel struct {
	ID       int   `gorm:"column:id;primaryKey"`
	OffsetNS int64 `gorm:"column:offset_ns"`
}

func (clockModel) TableName() string { return "sandbox_clock" }

// NewSandboxClock returns a clock reading its offset from db.
func NewSandboxClock(db *DB) *SandboxClock { return &SandboxClock{db: db} }

// Now implements ports.Clock.
func (c *SandboxClock) Now() time.Time {
	return time.Now().Add(time.Duration(c.offset.Load()))
}

// Refresh reloads the offset from the database.
func (c *SandboxClock) Refresh(ctx context.Context) error {
	var m clockModel
	err := c.db.conn(ctx).Where("id = 1").Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		c.offset.Store(0)
		return nil
	}
	if err != nil {
		return interpretError(err, nil, nil)
	}
	c.offset.Store(m.OffsetNS)
	return nil
}

// Advance implements ports.SandboxClock. It joins the request's transaction, so the move is
// stored with the request's idempotent answer.
func (c *SandboxClock) Advance(ctx context.Context, d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, errors.New("the sandbox clock only moves forward")
	}
	var offset int64
	err := c.db.inTx(ctx, func(ctx context.Context) error {
		var m clockModel
		err := c.db.conn(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = 1").Take(&m).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			m = clockModel{ID: 1}
		} else if err != nil {
			return interpretError(err, nil, nil)
		}
		if d > ports.MaxClockOffset-time.Duration(m.OffsetNS) {
			return ports.ErrClockBound
		}
		m.OffsetNS += int64(d)
		offset = m.OffsetNS
		c.db.afterCommit(ctx, func(context.Context) { c.offset.Store(offset) })
		return interpretError(c.db.conn(ctx).Clauses(clause.OnConflict{
			Columns:   []clause.Column{{Name: "id"}},
			DoUpdates: clause.AssignmentColumns([]string{"offset_ns"}),
		}).Create(&m).Error, nil, nil)
	})
	if err != nil {
		return time.Time{}, err
	}
	return time.Now().Add(time.Duration(offset)), nil
}

// Run refreshes the offset every interval until ctx ends.
func (c *SandboxClock) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = c.Refresh(ctx)
		}
	}
}
