package store

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/ports"
)

// SandboxClock implements ports.SandboxClock: the system time plus one offset per partner, kept
// in the database. Each node refreshes its copy of the offsets every second, so a multi-node
// sandbox agrees on every partner's time, and a restart keeps it.
type SandboxClock struct {
	db      *DB
	offsets atomic.Pointer[map[uuid.UUID]clockState]
}

// clockState is a partner's offset and how many times the partner reset its sandbox: offsets
// only grow between two resets, and a reset sets one back to zero.
type clockState struct {
	offset time.Duration
	resets int64
}

// after reports whether s is at least as late as o: a later reset, or the same and no smaller
// an offset.
func (s clockState) after(o clockState) bool {
	return s.resets > o.resets || (s.resets == o.resets && s.offset >= o.offset)
}

type clockModel struct {
	PartnerID uuid.UUID `gorm:"column:partner_id;primaryKey"`
	OffsetNS  int64     `gorm:"column:offset_ns"`
	Resets    int64     `gorm:"column:resets"`
}

func (clockModel) TableName() string { return "sandbox_clocks" }

func (m clockModel) state() clockState {
	return clockState{offset: time.Duration(m.OffsetNS), resets: m.Resets}
}

// NewSandboxClock returns a clock reading its offsets from db.
func NewSandboxClock(db *DB) *SandboxClock {
	c := &SandboxClock{db: db}
	c.offsets.Store(&map[uuid.UUID]clockState{})
	return c
}

// Now implements ports.Clock.
func (c *SandboxClock) Now(partner uuid.UUID) time.Time {
	return time.Now().Add((*c.offsets.Load())[partner].offset)
}

// Ahead implements ports.Clock.
func (c *SandboxClock) Ahead() []uuid.UUID {
	offsets := *c.offsets.Load()
	ahead := make([]uuid.UUID, 0, len(offsets))
	for p, s := range offsets {
		if s.offset > 0 {
			ahead = append(ahead, p)
		}
	}
	return ahead
}

// Refresh reloads the offsets from the database. Offsets only grow between resets, so a
// refresh that read before an advance committed on this node does not take that advance back;
// a reset another node committed is taken, being later.
func (c *SandboxClock) Refresh(ctx context.Context) error {
	var rows []clockModel
	if err := c.db.conn(ctx).Where("offset_ns > 0 OR resets > 0").Find(&rows).Error; err != nil {
		return interpretError(err, nil, nil)
	}
	read := make(map[uuid.UUID]clockState, len(rows))
	for _, r := range rows {
		read[r.PartnerID] = r.state()
	}
	c.merge(read)
	return nil
}

// Advance implements ports.SandboxClock. It joins the request's transaction, so the move is
// stored with the request's idempotent answer: the partner's row is made if missing, locked,
// checked against the bound and moved.
func (c *SandboxClock) Advance(ctx context.Context, partner uuid.UUID, d time.Duration) (time.Time, error) {
	if d < 0 {
		return time.Time{}, errors.New("the sandbox clock only moves forward")
	}
	var offset time.Duration
	err := c.db.inTx(ctx, func(ctx context.Context) error {
		m, err := c.lock(ctx, partner)
		if err != nil {
			return err
		}
		if d > ports.MaxClockOffset-time.Duration(m.OffsetNS) {
			return ports.ErrClockBound
		}
		offset = time.Duration(m.OffsetNS) + d
		AfterCommit(ctx, func(context.Context) {
			c.merge(map[uuid.UUID]clockState{partner: {offset: offset, resets: m.Resets}})
		})
		err = c.db.conn(ctx).Model(&m).Where("partner_id = ?", partner).Update("offset_ns", int64(offset)).Error
		return interpretError(err, nil, nil)
	})
	if err != nil {
		return time.Time{}, err
	}
	return time.Now().Add(offset), nil
}

// lock makes the partner's clock row if missing and locks it.
func (c *SandboxClock) lock(ctx context.Context, partner uuid.UUID) (clockModel, error) {
	m := clockModel{PartnerID: partner}
	if err := c.db.conn(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&m).Error; err != nil {
		return m, interpretError(err, nil, nil)
	}
	err := c.db.conn(ctx).Clauses(clause.Locking{Strength: "UPDATE"}).Where("partner_id = ?", partner).Take(&m).Error
	return m, interpretError(err, nil, nil)
}

// merge keeps, for every partner, the later of the state known and the one read.
func (c *SandboxClock) merge(read map[uuid.UUID]clockState) {
	for {
		old := c.offsets.Load()
		next := make(map[uuid.UUID]clockState, len(*old)+len(read))
		for p, s := range *old {
			next[p] = s
		}
		for p, s := range read {
			if s.after(next[p]) {
				next[p] = s
			}
		}
		if c.offsets.CompareAndSwap(old, &next) {
			return
		}
	}
}

// Run refreshes the offsets every interval until ctx ends.
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

// ofPartners narrows a listing of background work to the partners that share one time.
func ofPartners(p ports.Partners) func(*gorm.DB) *gorm.DB {
	return func(g *gorm.DB) *gorm.DB {
		if cond, args := partnersWhere(p, "partner_id"); cond != "" {
			return g.Where(cond, args...)
		}
		return g
	}
}

// partnersWhere is the condition on column that ports.Partners asks for; "" for every partner.
func partnersWhere(p ports.Partners, column string) (string, []any) {
	switch {
	case p.Only != uuid.Nil:
		return column + " = ?", []any{p.Only}
	case len(p.Except) > 0:
		return column + " NOT IN ?", []any{p.Except}
	}
	return "", nil
}
