package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// CollectionsRepository implements ports.CollectionsRepository (migration 00035).
type CollectionsRepository struct{ db *DB }

// NewCollectionsRepository returns the repository on db.
func NewCollectionsRepository(db *DB) *CollectionsRepository { return &CollectionsRepository{db: db} }

// scopesWhere is the condition that a loan (alias l) is overdue between minDays and maxDays
// (0: no bound) at its scope's today, one OR'ed term per scope.
func scopesWhere(scopes []ports.QueueScope, minDays, maxDays int) (string, []any) {
	var terms []string
	var args []any
	for _, sc := range scopes {
		term := []string{"l.first_unpaid_due <= ?"}
		args = append(args, sc.Today.AddDate(0, 0, -max(minDays, 1)))
		if maxDays > 0 {
			term = append(term, "l.first_unpaid_due >= ?")
			args = append(args, sc.Today.AddDate(0, 0, -maxDays))
		}
		if cond, a := partnersWhere(sc.Partners, "l.partner_id"); cond != "" {
			term = append(term, cond)
			args = append(args, a...)
		}
		terms = append(terms, "("+strings.Join(term, " AND ")+")")
	}
	return "(" + strings.Join(terms, " OR ") + ")", args
}

type queueRow struct {
	LoanID, PartnerID uuid.UUID
	Partner           string
	ContractNumber    *string
	Due               time.Time
	Principal         int64
	Collector         *uuid.UUID
	CollectorName     *string
	Flagged           *bool
}

// Queue implements ports.CollectionsRepository: one statement on the open loans' first unpaid
// due dates (their partial index), keyset-paged on (first_unpaid_due, id). A row's principal is
// the loan's principal outstanding: its LOAN and OVERDUE_PRINCIPAL accounts, each joined once
// for the page's loans alone.
func (r *CollectionsRepository) Queue(ctx context.Context, q ports.QueueQuery) ([]ports.QueueRow, error) {
	if len(q.Scopes) == 0 {
		return nil, nil
	}
	// The page's loans are picked first, on the open loans' (first_unpaid_due, id) index, and
	// only they are joined to their partners, collectors and balances.
	g := r.db.conn(ctx).Table("loans AS l").
		Joins("LEFT JOIN collection_assignments ca ON ca.loan_id = l.id").
		Select("l.id, l.partner_id, l.contract_number, l.first_unpaid_due, ca.collector_id, ca.flagged").
		Where("l.closed_at IS NULL AND l.written_off_at IS NULL AND l.first_unpaid_due IS NOT NULL")
	cond, args := scopesWhere(q.Scopes, q.MinDays, q.MaxDays)
	g = g.Where(cond, args...)
	switch {
	case q.Collector != uuid.Nil:
		g = g.Where("ca.collector_id = ?", q.Collector)
	case q.Unassigned:
		// An anti-join, which the planner estimates as the most of the loans it is: it then
		// walks the index in order and stops at the page's end.
		g = g.Where("NOT EXISTS (SELECT 1 FROM collection_assignments x WHERE x.loan_id = l.id AND x.collector_id IS NOT NULL)")
	}
	if q.Flagged {
		g = g.Where("ca.flagged")
	}
	if a := q.After; a != nil {
		g = g.Where("(l.first_unpaid_due, l.id) > (?, ?)", a.Due.UTC(), a.LoanID)
	}
	page := g.Order("l.first_unpaid_due, l.id").Limit(q.Limit)
	g = r.db.conn(ctx).Table("(?) AS q", page).
		Joins("JOIN partners p ON p.id = q.partner_id").
		Joins("LEFT JOIN operators o ON o.id = q.collector_id").
		Joins("LEFT JOIN ledger_accounts a ON a.loan_id = q.id AND a.kind = 'LOAN'").
		Joins("LEFT JOIN ledger_accounts od ON od.loan_id = q.id AND od.kind = 'OVERDUE_PRINCIPAL'").
		Select("q.id AS loan_id, q.partner_id, p.name AS partner, q.contract_number, q.first_unpaid_due AS due, " +
			"COALESCE(a.balance, 0) + COALESCE(od.balance, 0) AS principal, q.collector_id AS collector, o.name AS collector_name, q.flagged")
	var rows []queueRow
	if err := g.Order("q.first_unpaid_due, q.id").Scan(&rows).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.QueueRow, len(rows))
	for i, row := range rows {
		o := ports.QueueRow{LoanID: row.LoanID, PartnerID: row.PartnerID, Partner: row.Partner, Due: row.Due.UTC(),
			Principal: row.Principal}
		if row.ContractNumber != nil {
			o.ContractNumber = *row.ContractNumber
		}
		if row.Collector != nil {
			o.Collector = *row.Collector
		}
		if row.CollectorName != nil {
			o.CollectorName = *row.CollectorName
		}
		o.Flagged = row.Flagged != nil && *row.Flagged
		o.DaysOverdue = domain.DaysBetween(o.Due, todayOf(q.Scopes, row.PartnerID))
		out[i] = o
	}
	return out, nil
}

// todayOf is the today of the scope partner is in.
func todayOf(scopes []ports.QueueScope, partner uuid.UUID) time.Time {
	var rest time.Time
	for _, sc := range scopes {
		switch sc.Partners.Only {
		case partner:
			return sc.Today
		case uuid.Nil:
			rest = sc.Today
		}
	}
	return rest
}

type assignmentModel struct {
	LoanID      uuid.UUID  `gorm:"column:loan_id;primaryKey"`
	CollectorID *uuid.UUID `gorm:"column:collector_id"`
	AssignedBy  *uuid.UUID `gorm:"column:assigned_by"`
	AssignedAt  *time.Time `gorm:"column:assigned_at"`
	Flagged     bool       `gorm:"column:flagged"`
	FlaggedAt   *time.Time `gorm:"column:flagged_at"`
}

func (assignmentModel) TableName() string { return "collection_assignments" }

// Assignment implements ports.CollectionsRepository.
func (r *CollectionsRepository) Assignment(ctx context.Context, loanID uuid.UUID) (ports.Assignment, bool, error) {
	var ms []assignmentModel
	if err := r.db.conn(ctx).Where("loan_id = ?", loanID).Limit(1).Find(&ms).Error; err != nil {
		return ports.Assignment{}, false, interpretError(err, nil, nil)
	}
	if len(ms) == 0 || ms[0].CollectorID == nil && !ms[0].Flagged {
		return ports.Assignment{}, false, nil
	}
	m := ms[0]
	a := ports.Assignment{LoanID: m.LoanID, Flagged: m.Flagged}
	if m.CollectorID != nil {
		a.Collector = *m.CollectorID
	}
	if m.AssignedBy != nil {
		a.By = *m.AssignedBy
	}
	if m.AssignedAt != nil {
		a.At = m.AssignedAt.UTC()
	}
	return a, true, nil
}

// Assign implements ports.CollectionsRepository: an upsert of the loan's row.
func (r *CollectionsRepository) Assign(ctx context.Context, a ports.Assignment) error {
	at := a.At.UTC()
	m := assignmentModel{LoanID: a.LoanID, AssignedBy: &a.By, AssignedAt: &at}
	if a.Collector != uuid.Nil {
		m.CollectorID = &a.Collector
	}
	err := r.db.conn(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "loan_id"}},
		DoUpdates: clause.Assignments(map[string]any{"collector_id": m.CollectorID, "assigned_by": m.AssignedBy,
			"assigned_at": m.AssignedAt, "flagged": false, "flagged_at": nil})}).Create(&m).Error
	return interpretError(err, nil, nil)
}

// Flag implements ports.CollectionsRepository.
func (r *CollectionsRepository) Flag(ctx context.Context, loanID uuid.UUID, at time.Time) error {
	at = at.UTC()
	m := assignmentModel{LoanID: loanID, Flagged: true, FlaggedAt: &at}
	err := r.db.conn(ctx).Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "loan_id"}},
		DoUpdates: clause.Assignments(map[string]any{"flagged": true, "flagged_at": at})}).Create(&m).Error
	return interpretError(err, nil, nil)
}

type noteModel struct {
	ID       uuid.UUID `gorm:"column:id;primaryKey"`
	LoanID   uuid.UUID `gorm:"column:loan_id"`
	Channel  string    `gorm:"column:channel"`
	Outcome  string    `gorm:"column:outcome"`
	Note     string    `gorm:"column:note"`
	AuthorID uuid.UUID `gorm:"column:author_id"`
	At       time.Time `gorm:"column:at"`
}

func (noteModel) TableName() string { return "collection_notes" }

// AddNote implements ports.CollectionsRepository.
func (r *CollectionsRepository) AddNote(ctx context.Context, n domain.ContactNote) error {
	m := noteModel{ID: n.ID, LoanID: n.LoanID, Channel: n.Channel.String(), Outcome: n.Outcome.String(), Note: n.Text,
		AuthorID: n.By, At: n.At.UTC()}
	return interpretError(r.db.conn(ctx).Create(&m).Error, nil, nil)
}

// Notes implements ports.CollectionsRepository.
func (r *CollectionsRepository) Notes(ctx context.Context, loanID uuid.UUID, limit int) ([]domain.ContactNote, error) {
	var ms []noteModel
	if err := r.db.conn(ctx).Where("loan_id = ?", loanID).Order("at DESC, id DESC").Limit(limit).Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]domain.ContactNote, 0, len(ms))
	for _, m := range ms {
		ch, err := domain.ParseContactChannel(m.Channel)
		if err != nil {
			return nil, fmt.Errorf("contact %s: %w", m.ID, err)
		}
		o, err := domain.ParseContactOutcome(m.Outcome)
		if err != nil {
			return nil, fmt.Errorf("contact %s: %w", m.ID, err)
		}
		out = append(out, domain.ContactNote{ID: m.ID, LoanID: m.LoanID, Channel: ch, Outcome: o, Text: m.Note, By: m.AuthorID, At: m.At.UTC()})
	}
	return out, nil
}

type promiseModel struct {
	ID        uuid.UUID  `gorm:"column:id;primaryKey"`
	LoanID    uuid.UUID  `gorm:"column:loan_id"`
	PartnerID uuid.UUID  `gorm:"column:partner_id"`
	Amount    int64      `gorm:"column:amount"`
	DueDate   time.Time  `gorm:"column:due_date"`
	MadeBy    uuid.UUID  `gorm:"column:made_by"`
	MadeAt    time.Time  `gorm:"column:made_at"`
	Status    string     `gorm:"column:status"`
	Paid      int64      `gorm:"column:paid"`
	SettledAt *time.Time `gorm:"column:settled_at"`
}

func (promiseModel) TableName() string { return "promises_to_pay" }

func toPromiseModel(p *domain.PromiseToPay) promiseModel {
	s := p.State()
	m := promiseModel{ID: s.ID, LoanID: s.LoanID, PartnerID: s.PartnerID, Amount: s.Amount, DueDate: s.Due.UTC(), MadeBy: s.By,
		MadeAt: s.MadeAt.UTC(), Status: s.Status.String(), Paid: s.Paid}
	if !s.SettledAt.IsZero() {
		at := s.SettledAt.UTC()
		m.SettledAt = &at
	}
	return m
}

func (m promiseModel) toDomain() (*domain.PromiseToPay, error) {
	st, err := domain.ParsePromiseStatus(m.Status)
	if err != nil {
		return nil, fmt.Errorf("promise %s: %w", m.ID, err)
	}
	s := domain.PromiseState{ID: m.ID, LoanID: m.LoanID, PartnerID: m.PartnerID, Amount: m.Amount, Due: m.DueDate.UTC(), By: m.MadeBy,
		MadeAt: m.MadeAt.UTC(), Status: st, Paid: m.Paid}
	if m.SettledAt != nil {
		s.SettledAt = m.SettledAt.UTC()
	}
	return domain.RestorePromiseToPay(s), nil
}

func promisesOf(ms []promiseModel) ([]*domain.PromiseToPay, error) {
	out := make([]*domain.PromiseToPay, 0, len(ms))
	for _, m := range ms {
		p, err := m.toDomain()
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// AddPromise implements ports.CollectionsRepository.
func (r *CollectionsRepository) AddPromise(ctx context.Context, p *domain.PromiseToPay) error {
	m := toPromiseModel(p)
	return interpretError(r.db.conn(ctx).Create(&m).Error, nil, nil)
}

// Promises implements ports.CollectionsRepository.
func (r *CollectionsRepository) Promises(ctx context.Context, loanID uuid.UUID, limit int) ([]*domain.PromiseToPay, error) {
	var ms []promiseModel
	if err := r.db.conn(ctx).Where("loan_id = ?", loanID).Order("made_at DESC, id DESC").Limit(limit).Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	return promisesOf(ms)
}

// OpenPromises implements ports.CollectionsRepository, on the open promises' partial index.
func (r *CollectionsRepository) OpenPromises(ctx context.Context, partners ports.Partners, limit int) ([]*domain.PromiseToPay, error) {
	var ms []promiseModel
	err := r.db.conn(ctx).Scopes(ofPartners(partners)).Where("status = ?", domain.PromiseOpen.String()).
		Order("made_at, id").Limit(limit).Find(&ms).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	return promisesOf(ms)
}

// UpdatePromise implements ports.CollectionsRepository.
func (r *CollectionsRepository) UpdatePromise(ctx context.Context, id uuid.UUID, fn func(p *domain.PromiseToPay) error) error {
	return r.db.inTx(ctx, func(ctx context.Context) error {
		g := r.db.conn(ctx)
		var m promiseModel
		if err := g.Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id).First(&m).Error; err != nil {
			return interpretError(err, domain.ErrPromiseNotFound, nil)
		}
		p, err := m.toDomain()
		if err != nil {
			return err
		}
		if err := fn(p); err != nil {
			return err
		}
		next := toPromiseModel(p)
		return interpretError(g.Save(&next).Error, nil, nil)
	})
}

// PaidSince implements ports.CollectionsRepository, on the repayments of the loan.
func (r *CollectionsRepository) PaidSince(ctx context.Context, loanID uuid.UUID, since time.Time) (int64, error) {
	var sum int64
	err := r.db.conn(ctx).Table("repayments").Select("COALESCE(SUM(amount), 0)").
		Where("loan_id = ? AND paid_at IS NOT NULL AND paid_at >= ?", loanID, since.UTC()).Scan(&sum).Error
	return sum, interpretError(err, nil, nil)
}

// DueForReminder implements ports.CollectionsRepository, on the open loans' first unpaid dates
// (one range of the index per window).
func (r *CollectionsRepository) DueForReminder(ctx context.Context, partners ports.Partners, windows []domain.DateRange, after uuid.UUID,
	limit int) ([]uuid.UUID, error) {
	if len(windows) == 0 {
		return nil, nil
	}
	terms := make([]string, len(windows))
	args := make([]any, 0, 2*len(windows))
	for i, w := range windows {
		terms[i] = "(first_unpaid_due >= ? AND first_unpaid_due <= ?)"
		args = append(args, w.From.UTC(), w.To.UTC())
	}
	var ids []uuid.UUID
	g := r.db.conn(ctx).Table("loans").Scopes(ofPartners(partners)).
		Where("closed_at IS NULL AND written_off_at IS NULL AND first_unpaid_due IS NOT NULL").
		Where("("+strings.Join(terms, " OR ")+")", args...)
	if after != uuid.Nil {
		g = g.Where("id > ?", after)
	}
	err := g.Order("id").Limit(limit).Pluck("id", &ids).Error
	return ids, interpretError(err, nil, nil)
}

type reminderModel struct {
	ID        uuid.UUID `gorm:"column:id;primaryKey"`
	LoanID    uuid.UUID `gorm:"column:loan_id"`
	PartnerID uuid.UUID `gorm:"column:partner_id"`
	Borrower  string    `gorm:"column:borrower"`
	RuleKey   string    `gorm:"column:rule_key"`
	Kind      string    `gorm:"column:kind"`
	Bucket    string    `gorm:"column:bucket"`
	DueDate   time.Time `gorm:"column:due_date"`
	Amount    int64     `gorm:"column:amount"`
	Status    string    `gorm:"column:status"`
	At        time.Time `gorm:"column:at"`
}

func (reminderModel) TableName() string { return "reminders" }

// ClaimReminder implements ports.CollectionsRepository. The borrower is the loan's client, by
// the blind index of their PINFL, so the weekly cap counts every loan of theirs; the rule key's
// unique index keeps a reminder from being claimed twice.
func (r *CollectionsRepository) ClaimReminder(ctx context.Context, rec ports.ReminderRecord, weekAgo time.Time, perWeek int) (bool, error) {
	claimed := false
	err := r.db.inTx(ctx, func(ctx context.Context) error {
		g := r.db.conn(ctx)
		var borrower string
		err := g.Table("loans l").Joins("JOIN applications a ON a.id = l.application_id").
			Where("l.id = ?", rec.LoanID).Pluck("a.pinfl_index", &borrower).Error
		if err != nil {
			return interpretError(err, nil, nil)
		}
		if borrower == "" {
			borrower = rec.LoanID.String()
		}
		var n int64
		err = g.Model(&reminderModel{}).Where("borrower = ? AND at >= ? AND status <> ?", borrower, weekAgo.UTC(), ports.ReminderFailed).
			Count(&n).Error
		if err != nil || n >= int64(perWeek) {
			return interpretError(err, nil, nil)
		}
		rm := rec.Reminder
		m := reminderModel{ID: rec.ID, LoanID: rec.LoanID, PartnerID: rec.PartnerID, Borrower: borrower, RuleKey: rm.Key(),
			Kind: rm.Kind.String(), DueDate: rm.Due.UTC(), Amount: rm.Amount, Status: ports.ReminderPending, At: rec.At.UTC()}
		if rm.Kind == domain.ReminderOverdue {
			m.Bucket = rm.Bucket.String()
		}
		res := g.Clauses(clause.OnConflict{DoNothing: true}).Create(&m)
		if res.Error != nil {
			return interpretError(res.Error, nil, nil)
		}
		claimed = res.RowsAffected == 1
		return nil
	})
	return claimed, err
}

// SettleReminder implements ports.CollectionsRepository.
func (r *CollectionsRepository) SettleReminder(ctx context.Context, id uuid.UUID, status string, at time.Time) error {
	err := r.db.conn(ctx).Model(&reminderModel{}).Where("id = ?", id).Updates(map[string]any{"status": status, "at": at.UTC()}).Error
	return interpretError(err, nil, nil)
}

// Reminders implements ports.CollectionsRepository.
func (r *CollectionsRepository) Reminders(ctx context.Context, loanID uuid.UUID, limit int) ([]ports.ReminderRecord, error) {
	var ms []reminderModel
	if err := r.db.conn(ctx).Where("loan_id = ?", loanID).Order("at DESC, id DESC").Limit(limit).Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.ReminderRecord, 0, len(ms))
	for _, m := range ms {
		k, err := domain.ParseReminderKind(m.Kind)
		if err != nil {
			return nil, fmt.Errorf("reminder %s: %w", m.ID, err)
		}
		rm := domain.Reminder{Kind: k, Due: m.DueDate.UTC(), Amount: m.Amount}
		if m.Bucket != "" {
			rm.Bucket = bucketOf(m.Bucket)
		}
		out = append(out, ports.ReminderRecord{ID: m.ID, LoanID: m.LoanID, PartnerID: m.PartnerID, Reminder: rm, Status: m.Status, At: m.At.UTC()})
	}
	return out, nil
}

// bucketOf reads a stored bucket ("8-30", "91+").
func bucketOf(s string) domain.Bucket {
	var b domain.Bucket
	if strings.HasSuffix(s, "+") {
		_, _ = fmt.Sscanf(s, "%d+", &b.From)
		return b
	}
	_, _ = fmt.Sscanf(s, "%d-%d", &b.From, &b.To)
	return b
}

type parModel struct {
	Day       time.Time `gorm:"column:day;primaryKey"`
	Loans     int       `gorm:"column:loans"`
	Principal int64     `gorm:"column:principal"`
	PAR1      int64     `gorm:"column:par1"`
	PAR30     int64     `gorm:"column:par30"`
	PAR90     int64     `gorm:"column:par90"`
	Loans1    int       `gorm:"column:loans1"`
	Loans30   int       `gorm:"column:loans30"`
	Loans90   int       `gorm:"column:loans90"`
}

func (parModel) TableName() string { return "par_snapshots" }

type bucketDayModel struct {
	Day    time.Time `gorm:"column:day;primaryKey"`
	LoanID uuid.UUID `gorm:"column:loan_id;primaryKey"`
	Bucket int       `gorm:"column:bucket"`
}

func (bucketDayModel) TableName() string { return "collection_bucket_days" }

// SnapshotPAR implements ports.CollectionsRepository: per scope one statement over the open
// loans, their principal outstanding (LOAN and OVERDUE_PRINCIPAL, summed a loan) and first
// unpaid dates, then the overdue loans' buckets in batches; the day's rows are replaced as a
// whole.
func (r *CollectionsRepository) SnapshotPAR(ctx context.Context, scopes []ports.QueueScope, day time.Time, buckets domain.Buckets) error {
	day = day.UTC()
	return r.db.inTx(ctx, func(ctx context.Context) error {
		g := r.db.conn(ctx)
		if err := g.Where("day = ?", day).Delete(&parModel{}).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		if err := g.Where("day = ?", day).Delete(&bucketDayModel{}).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		snap := parModel{Day: day}
		var overdue []bucketDayModel
		for _, sc := range scopes {
			var rows []struct {
				ID        uuid.UUID
				Due       *time.Time
				Principal int64
			}
			q := g.Table("loans l").
				Joins("LEFT JOIN ledger_accounts a ON a.loan_id = l.id AND a.kind IN ('LOAN', 'OVERDUE_PRINCIPAL')").
				Select("l.id, l.first_unpaid_due AS due, COALESCE(SUM(a.balance), 0) AS principal").
				Where("l.closed_at IS NULL AND l.written_off_at IS NULL").
				Group("l.id, l.first_unpaid_due")
			if cond, args := partnersWhere(sc.Partners, "l.partner_id"); cond != "" {
				q = q.Where(cond, args...)
			}
			if err := q.Scan(&rows).Error; err != nil {
				return interpretError(err, nil, nil)
			}
			for _, row := range rows {
				snap.Loans++
				snap.Principal += row.Principal
				if row.Due == nil || !row.Due.UTC().Before(sc.Today) {
					continue
				}
				days := domain.DaysBetween(row.Due.UTC(), sc.Today)
				for _, c := range []struct {
					min int
					n   *int
					sum *int64
				}{{1, &snap.Loans1, &snap.PAR1}, {30, &snap.Loans30, &snap.PAR30}, {90, &snap.Loans90, &snap.PAR90}} {
					if days > c.min || c.min == 1 && days >= 1 {
						*c.n++
						*c.sum += row.Principal
					}
				}
				if b := buckets.Of(days); b >= 0 {
					overdue = append(overdue, bucketDayModel{Day: day, LoanID: row.ID, Bucket: b})
				}
			}
		}
		if err := g.Create(&snap).Error; err != nil {
			return interpretError(err, nil, nil)
		}
		if len(overdue) > 0 {
			if err := g.CreateInBatches(overdue, 500).Error; err != nil {
				return interpretError(err, nil, nil)
			}
		}
		return nil
	})
}

// PARHistory implements ports.CollectionsRepository.
func (r *CollectionsRepository) PARHistory(ctx context.Context, from, to time.Time) ([]ports.PARSnapshot, error) {
	var ms []parModel
	if err := r.db.conn(ctx).Where("day >= ? AND day <= ?", from.UTC(), to.UTC()).Order("day").Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.PARSnapshot, len(ms))
	for i, m := range ms {
		out[i] = ports.PARSnapshot{Day: m.Day.UTC(), Loans: m.Loans, Principal: m.Principal, PAR1: m.PAR1, PAR30: m.PAR30,
			PAR90: m.PAR90, Loans1: m.Loans1, Loans30: m.Loans30, Loans90: m.Loans90}
	}
	return out, nil
}

// BucketsOn implements ports.CollectionsRepository.
func (r *CollectionsRepository) BucketsOn(ctx context.Context, day time.Time) ([]ports.BucketDay, error) {
	var ms []bucketDayModel
	if err := r.db.conn(ctx).Where("day = ?", day.UTC()).Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.BucketDay, len(ms))
	for i, m := range ms {
		out[i] = ports.BucketDay{LoanID: m.LoanID, Bucket: m.Bucket}
	}
	return out, nil
}

// Report implements ports.CollectionsRepository: two statements, the promises settled in the
// period (their settled index) and the payments of the period on loans a collector has.
func (r *CollectionsRepository) Report(ctx context.Context, from, to time.Time) (ports.CollectionsReport, error) {
	var rep ports.CollectionsReport
	var counts []struct {
		Status string
		N      int
		Sum    int64
	}
	err := r.db.conn(ctx).Table("promises_to_pay").Select("status, COUNT(*) AS n, COALESCE(SUM(amount), 0) AS sum").
		Where("(settled_at >= ? AND settled_at < ?) OR status = ?", from.UTC(), to.UTC(), domain.PromiseOpen.String()).
		Group("status").Scan(&counts).Error
	if err != nil {
		return rep, interpretError(err, nil, nil)
	}
	for _, c := range counts {
		switch c.Status {
		case domain.PromiseKept.String():
			rep.Kept, rep.KeptAmount = c.N, c.Sum
		case domain.PromiseBroken.String():
			rep.Broken = c.N
		case domain.PromiseOpen.String():
			rep.Open = c.N
		}
	}
	err = r.db.conn(ctx).Raw(`SELECT o.name AS collector, COUNT(DISTINCT r.loan_id) AS loans, SUM(r.amount) AS amount
FROM collection_assignments ca
JOIN operators o ON o.id = ca.collector_id
JOIN repayments r ON r.loan_id = ca.loan_id AND r.paid_at >= ? AND r.paid_at < ? AND r.paid_at >= ca.assigned_at
GROUP BY o.name ORDER BY amount DESC, o.name`, from.UTC(), to.UTC()).Scan(&rep.Recovered).Error
	return rep, interpretError(err, nil, nil)
}

var _ ports.CollectionsRepository = (*CollectionsRepository)(nil)
