package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// ReconciliationRepository implements ports.ReconciliationRepository.
type ReconciliationRepository struct{ db *DB }

// NewReconciliationRepository returns the repository on db.
func NewReconciliationRepository(db *DB) *ReconciliationRepository {
	return &ReconciliationRepository{db: db}
}

// Lines implements ports.ReconciliationRepository: two statements, each on its table's time.
func (r *ReconciliationRepository) Lines(ctx context.Context, q ports.StatementQuery) ([]domain.StatementLine, error) {
	from, to := domain.BusinessDay(q.Day)
	var credits []struct {
		ID        uuid.UUID
		Amount    int64
		Status    string
		CreatedAt time.Time
	}
	err := r.db.conn(ctx).Table("transfers").Select("id, amount, status, created_at").
		Where("network = ? AND status IN ? AND created_at >= ? AND created_at < ?", q.Network.String(),
			[]string{domain.TransferProcessing.String(), domain.TransferSuccess.String(), domain.TransferFailed.String()}, from, to).
		Order("created_at, id").Scan(&credits).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	var debits []struct {
		DebitID string
		Amount  int64
		PaidAt  time.Time
	}
	err = r.db.conn(ctx).Table("repayments").Select("debit_id, amount, paid_at").
		Where("channel = ? AND network = ? AND paid_at >= ? AND paid_at < ?", domain.ChannelCard.String(), q.Network.String(), from, to).
		Order("paid_at, id").Scan(&debits).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]domain.StatementLine, 0, len(credits)+len(debits))
	for _, c := range credits {
		status := domain.LineUnknown
		switch c.Status {
		case domain.TransferSuccess.String():
			status = domain.LineDone
		case domain.TransferFailed.String():
			status = domain.LineFailed
		}
		out = append(out, domain.StatementLine{ID: domain.CreditLineID(c.ID), Kind: domain.LineCredit, Amount: c.Amount,
			At: c.CreatedAt.UTC(), Status: status})
	}
	for _, d := range debits {
		out = append(out, domain.StatementLine{ID: d.DebitID, Kind: domain.LineDebit, Amount: d.Amount, At: d.PaidAt.UTC(),
			Status: domain.LineDone})
	}
	return out, nil
}

// Balances implements ports.ReconciliationRepository: one grouped statement over the ledger's
// entries posted before the day's end, by demand account number and line: the DEMAND account,
// and the loan's principal outstanding, its LOAN and OVERDUE_PRINCIPAL accounts together (core
// banking's loan account holds the whole principal; the close's move of the principal fallen
// due unpaid between the two changes nothing there).
func (r *ReconciliationRepository) Balances(ctx context.Context, day time.Time) ([]domain.AccountBalance, error) {
	_, end := domain.BusinessDay(day)
	var rows []struct {
		Account string
		Kind    string
		Balance int64
	}
	err := r.db.conn(ctx).Raw(`SELECT l.account_number AS account, CASE WHEN a.kind = ? THEN ? ELSE ? END AS kind,
  SUM(e.debit - e.credit) AS balance
FROM ledger_entries e
JOIN ledger_postings p ON p.id = e.posting_id
JOIN ledger_accounts a ON a.key = e.account_key
JOIN loans l ON l.id = a.loan_id
WHERE p.created_at < ? AND a.kind IN (?, ?, ?)
GROUP BY 1, 2
ORDER BY 1, 2`, domain.AccountDemand.String(), string(domain.LineDemand), string(domain.LineLoan), end,
		domain.AccountDemand.String(), domain.AccountLoan.String(), domain.AccountOverduePrincipal.String()).Scan(&rows).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]domain.AccountBalance, len(rows))
	for i, row := range rows {
		out[i] = domain.AccountBalance{Account: row.Account, Kind: domain.LineLoan, Balance: row.Balance}
		if row.Kind == string(domain.LineDemand) {
			// Credit-normal: its balance is its credits less its debits.
			out[i] = domain.AccountBalance{Account: row.Account, Kind: domain.LineDemand, Balance: -row.Balance}
		}
	}
	return out, nil
}

type reconciliationRunModel struct {
	ID      uuid.UUID `gorm:"column:id;primaryKey"`
	Day     time.Time `gorm:"column:day"`
	Source  string    `gorm:"column:network"`
	At      time.Time `gorm:"column:at"`
	Matched int       `gorm:"column:matched"`
	Breaks  int       `gorm:"column:breaks"`
}

func (reconciliationRunModel) TableName() string { return "reconciliation_runs" }

type reconciliationBreakModel struct {
	ID          uuid.UUID  `gorm:"column:id;primaryKey"`
	Day         time.Time  `gorm:"column:day"`
	Source      string     `gorm:"column:network"`
	Kind        string     `gorm:"column:kind"`
	LineID      string     `gorm:"column:line_id"`
	LineKind    string     `gorm:"column:line_kind"`
	OurAmount   *int64     `gorm:"column:our_amount"`
	OurStatus   *string    `gorm:"column:our_status"`
	OurAt       *time.Time `gorm:"column:our_at"`
	TheirAmount *int64     `gorm:"column:their_amount"`
	TheirStatus *string    `gorm:"column:their_status"`
	TheirAt     *time.Time `gorm:"column:their_at"`
	Status      string     `gorm:"column:status"`
	Note        string     `gorm:"column:note"`
	WorkedBy    string     `gorm:"column:worked_by"`
	WorkedAt    *time.Time `gorm:"column:worked_at"`
	FoundAt     time.Time  `gorm:"column:found_at"`
	LastDay     *time.Time `gorm:"column:last_day"`
	RunID       uuid.UUID  `gorm:"column:run_id"`
}

func (reconciliationBreakModel) TableName() string { return "reconciliation_breaks" }

// side is one side's line as the break's columns.
func side(l *domain.StatementLine) (*int64, *string, *time.Time) {
	if l == nil {
		return nil, nil, nil
	}
	amount, status, at := l.Amount, string(l.Status), l.At.UTC()
	return &amount, &status, &at
}

// line is a side of a stored break, nil where the side has none.
func line(kind, id string, amount *int64, status *string, at *time.Time) *domain.StatementLine {
	if amount == nil || status == nil || at == nil {
		return nil
	}
	return &domain.StatementLine{ID: id, Kind: domain.LineKind(kind), Amount: *amount, Status: domain.LineStatus(*status), At: at.UTC()}
}

// Breaks implements ports.ReconciliationRepository: a page by keyset on (found_at, id), on the
// index of the status (and source and kind) it filters on.
func (r *ReconciliationRepository) Breaks(ctx context.Context, q ports.BreakQuery) ([]ports.BreakRecord, error) {
	g := r.breakFilter(ctx, q).Limit(max(q.Limit, 1))
	switch {
	case q.Oldest:
		g = g.Order("day, found_at, id")
	case q.Cursor != nil && q.Backward:
		g = g.Where("(found_at, id) > (?, ?)", q.Cursor.FoundAt.UTC(), q.Cursor.ID).Order("found_at, id")
	case q.Cursor != nil:
		g = g.Where("(found_at, id) < (?, ?)", q.Cursor.FoundAt.UTC(), q.Cursor.ID).Order("found_at DESC, id DESC")
	default:
		g = g.Order("found_at DESC, id DESC")
	}
	var ms []reconciliationBreakModel
	if err := g.Find(&ms).Error; err != nil {
		return nil, interpretError(err, nil, nil)
	}
	if q.Cursor != nil && q.Backward && !q.Oldest {
		slices.Reverse(ms)
	}
	out := make([]ports.BreakRecord, len(ms))
	for i, m := range ms {
		out[i] = m.record()
	}
	return out, nil
}

// CountBreaks implements ports.ReconciliationRepository.
func (r *ReconciliationRepository) CountBreaks(ctx context.Context, q ports.BreakQuery) (int, error) {
	var n int64
	g := r.breakFilter(ctx, q).Model(&reconciliationBreakModel{})
	if q.Limit > 0 {
		g = r.db.conn(ctx).Table("(?) AS matched", g.Select("1").Limit(q.Limit))
	}
	err := g.Count(&n).Error
	return int(n), interpretError(err, nil, nil)
}

// breakFilter is the breaks q selects, whatever its page. A day selects its own breaks and the
// balance breaks that span it.
func (r *ReconciliationRepository) breakFilter(ctx context.Context, q ports.BreakQuery) *gorm.DB {
	g := r.db.conn(ctx)
	if len(q.IDs) > 0 {
		g = g.Where("id IN ?", q.IDs)
	}
	if q.Status != "" {
		g = g.Where("status = ?", q.Status)
	}
	if !q.Day.IsZero() {
		day := domain.BusinessDate(q.Day)
		g = g.Where("(day = ? OR (kind = ? AND day < ? AND last_day >= ?))", day, string(domain.BreakBalanceDiffers), day, day)
	}
	if q.Source != "" {
		g = g.Where("network = ?", q.Source)
	}
	if q.Kind != "" {
		g = g.Where("kind = ?", q.Kind)
	}
	if q.RunID != uuid.Nil {
		g = g.Where("run_id = ?", q.RunID)
	}
	return g
}

// Standing implements ports.ReconciliationRepository: one grouped statement, over the day's
// breaks and the balance breaks that span it.
func (r *ReconciliationRepository) Standing(ctx context.Context, day time.Time, source string) (map[string]int, error) {
	var rows []struct {
		Status string
		N      int
	}
	err := r.db.conn(ctx).Model(&reconciliationBreakModel{}).Select("status, COUNT(*) AS n").
		Where("network = ? AND (day = ? OR (kind = ? AND day < ? AND last_day >= ?))", source, domain.BusinessDate(day),
			string(domain.BreakBalanceDiffers), domain.BusinessDate(day), domain.BusinessDate(day)).Group("status").Scan(&rows).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make(map[string]int, len(rows))
	for _, row := range rows {
		out[row.Status] = row.N
	}
	return out, nil
}

// record is the stored break as the port gives it.
func (m reconciliationBreakModel) record() ports.BreakRecord {
	last := m.Day
	if m.LastDay != nil {
		last = *m.LastDay
	}
	return ports.BreakRecord{ID: m.ID, Day: m.Day.UTC(), Source: m.Source, LastDay: last.UTC(),
		Break: domain.Break{Kind: domain.BreakKind(m.Kind), LineID: m.LineID,
			Ours:   line(m.LineKind, m.LineID, m.OurAmount, m.OurStatus, m.OurAt),
			Theirs: line(m.LineKind, m.LineID, m.TheirAmount, m.TheirStatus, m.TheirAt)},
		Status: m.Status, FoundAt: m.FoundAt.UTC(), Note: m.Note, WorkedBy: m.WorkedBy}
}

// Break implements ports.ReconciliationRepository.
func (r *ReconciliationRepository) Break(ctx context.Context, id uuid.UUID) (ports.BreakRecord, error) {
	var m reconciliationBreakModel
	if err := r.db.conn(ctx).Where("id = ?", id).Take(&m).Error; err != nil {
		return ports.BreakRecord{}, interpretError(err, ports.ErrBreakNotFound, nil)
	}
	return m.record(), nil
}

// Close implements ports.ReconciliationRepository: the update names the OPEN status, so two
// operators working a break at once leave one note.
func (r *ReconciliationRepository) Close(ctx context.Context, id uuid.UUID, status, note, by string, at time.Time) error {
	res := r.db.conn(ctx).Model(&reconciliationBreakModel{}).Where("id = ? AND status = ?", id, ports.BreakOpen).
		Updates(map[string]any{"status": status, "note": note, "worked_by": by, "worked_at": at.UTC()})
	if err := interpretError(res.Error, nil, nil); err != nil {
		return err
	}
	if res.RowsAffected == 1 {
		return nil
	}
	if _, err := r.Break(ctx, id); err != nil {
		return err
	}
	return domain.ErrWrongState
}

// Reopen implements ports.ReconciliationRepository: the update names the EXPLAINED status, and
// a balance break meets the unique index of one open balance break an account.
func (r *ReconciliationRepository) Reopen(ctx context.Context, id uuid.UUID, note, by string, at time.Time) error {
	res := r.db.conn(ctx).Model(&reconciliationBreakModel{}).Where("id = ? AND status = ?", id, ports.BreakExplained).
		Updates(map[string]any{"status": ports.BreakOpen, "note": note, "worked_by": by, "worked_at": at.UTC()})
	if err := interpretError(res.Error, nil, openBalanceUnique); err != nil {
		return err
	}
	if res.RowsAffected == 1 {
		return nil
	}
	if _, err := r.Break(ctx, id); err != nil {
		return err
	}
	return fmt.Errorf("%w: only an explained break is reopened", domain.ErrWrongState)
}

// openBalanceUnique names the index of one open balance break an account.
var openBalanceUnique = constraintErrors{
	"reconciliation_breaks_open_balance_key":                       fmt.Errorf("%w: the account has another open balance break: work that one", domain.ErrWrongState),
	"reconciliation_breaks.network, reconciliation_breaks.line_id": fmt.Errorf("%w: the account has another open balance break: work that one", domain.ErrWrongState),
}

// OpenBreaks implements ports.ReconciliationRepository: one statement on the open breaks' index.
func (r *ReconciliationRepository) OpenBreaks(ctx context.Context, now time.Time) (ports.BreakAges, error) {
	d1, d7, d30 := now.AddDate(0, 0, -1).UTC(), now.AddDate(0, 0, -7).UTC(), now.AddDate(0, 0, -30).UTC()
	var got struct{ A, B, C, D int }
	err := r.db.conn(ctx).Raw(`SELECT
  COALESCE(SUM(CASE WHEN found_at >= ? THEN 1 ELSE 0 END), 0) AS a,
  COALESCE(SUM(CASE WHEN found_at < ? AND found_at >= ? THEN 1 ELSE 0 END), 0) AS b,
  COALESCE(SUM(CASE WHEN found_at < ? AND found_at >= ? THEN 1 ELSE 0 END), 0) AS c,
  COALESCE(SUM(CASE WHEN found_at < ? THEN 1 ELSE 0 END), 0) AS d
FROM reconciliation_breaks WHERE status = 'OPEN'`, d1, d1, d7, d7, d30, d30).Scan(&got).Error
	return ports.BreakAges{got.A, got.B, got.C, got.D}, interpretError(err, nil, nil)
}

// Record implements ports.ReconciliationRepository: the run, then its breaks, each inserted
// unless its day, network, kind and line are recorded already (a unique index decides, so two
// nodes running the same day at once record it once). A balance break is kept once an account
// while open (balanceBreaks).
func (r *ReconciliationRepository) Record(ctx context.Context, run ports.ReconciliationRun, breaks []domain.Break) (int, error) {
	day := domain.BusinessDate(run.Day)
	m := reconciliationRunModel{ID: run.ID, Day: day, Source: run.Source, At: run.At.UTC(), Matched: run.Matched, Breaks: run.Breaks}
	if err := r.db.conn(ctx).Create(&m).Error; err != nil {
		return 0, interpretError(err, nil, nil)
	}
	breaks, err := r.balanceBreaks(ctx, m, breaks)
	if err != nil || len(breaks) == 0 {
		return 0, err
	}
	rows := make([]reconciliationBreakModel, 0, len(breaks))
	for _, b := range breaks {
		row := reconciliationBreakModel{ID: uuid.Must(uuid.NewV7()), Day: day, Source: m.Source, Kind: string(b.Kind), LineID: b.LineID,
			Status: ports.BreakOpen, FoundAt: m.At, LastDay: &day, RunID: run.ID}
		if b.Resolved {
			row.Status = ports.BreakResolved
		}
		if b.Ours != nil {
			row.LineKind = string(b.Ours.Kind)
		} else if b.Theirs != nil {
			row.LineKind = string(b.Theirs.Kind)
		}
		row.OurAmount, row.OurStatus, row.OurAt = side(b.Ours)
		row.TheirAmount, row.TheirStatus, row.TheirAt = side(b.Theirs)
		rows = append(rows, row)
	}
	// Inserted in batches; a break already recorded is skipped, and not counted as added.
	res := r.db.conn(ctx).Clauses(clause.OnConflict{DoNothing: true}).CreateInBatches(rows, 500)
	return int(res.RowsAffected), interpretError(res.Error, nil, nil)
}

// balanceBreaks keeps one open balance break an account (issue 47, 3): of the run's breaks, it
// returns those to insert. A balance break of an account whose break already spans the run's
// day (found on it, or on days around it) is not new; one whose account has a break open is
// that break, seen again: it spans the run's day too, and a later day gives it its balances.
// Only an account without either gets a new break.
func (r *ReconciliationRepository) balanceBreaks(ctx context.Context, run reconciliationRunModel, breaks []domain.Break) ([]domain.Break, error) {
	var ids []string
	for _, b := range breaks {
		if b.Kind == domain.BreakBalanceDiffers {
			ids = append(ids, b.LineID)
		}
	}
	if len(ids) == 0 {
		return breaks, nil
	}
	known := map[string]reconciliationBreakModel{}
	spans := map[string]bool{}
	for chunk := range slices.Chunk(ids, 500) {
		var ms []reconciliationBreakModel
		err := r.db.conn(ctx).Where("network = ? AND kind = ? AND line_id IN ? AND (status = ? OR (day <= ? AND last_day >= ?))",
			run.Source, string(domain.BreakBalanceDiffers), chunk, ports.BreakOpen, run.Day, run.Day).Find(&ms).Error
		if err != nil {
			return nil, interpretError(err, nil, nil)
		}
		for _, m := range ms {
			if last := m.record().LastDay; !m.Day.After(run.Day) && !last.Before(run.Day) {
				spans[m.LineID] = true
			}
			if m.Status == ports.BreakOpen {
				known[m.LineID] = m
			}
		}
	}
	out := breaks[:0:0]
	for _, b := range breaks {
		if b.Kind != domain.BreakBalanceDiffers {
			out = append(out, b)
			continue
		}
		m, open := known[b.LineID]
		switch {
		case spans[b.LineID]:
		case !open:
			out = append(out, b)
		default:
			set := map[string]any{}
			last := m.record().LastDay
			if run.Day.After(last) {
				set["last_day"] = run.Day
				set["our_amount"], set["our_status"], set["our_at"] = side(b.Ours)
				set["their_amount"], set["their_status"], set["their_at"] = side(b.Theirs)
			} else {
				set["day"] = run.Day // a day before it, run again: the break spans it too
			}
			err := r.db.conn(ctx).Model(&reconciliationBreakModel{}).Where("id = ? AND status = ?", m.ID, ports.BreakOpen).Updates(set).Error
			if err != nil {
				return nil, interpretError(err, nil, nil)
			}
		}
	}
	return out, nil
}

// Trace implements ports.ReconciliationRepository: at most one statement per kind of line, on
// the transfers' key, repayments_debit_key and loans_account_number.
func (r *ReconciliationRepository) Trace(ctx context.Context, breaks []ports.BreakRecord) (map[uuid.UUID]ports.LineObject, error) {
	var transfers []uuid.UUID
	var debits, networks, accounts []string
	for _, b := range breaks {
		switch kind := breakLineKind(b); kind {
		case domain.LineCredit:
			if id, ok := domain.TransferOfLine(b.LineID); ok {
				transfers = append(transfers, id)
			}
		case domain.LineDebit:
			debits, networks = append(debits, b.LineID), append(networks, b.Source)
		case domain.LineDemand, domain.LineLoan:
			if account, ok := strings.CutSuffix(b.LineID, ":"+string(kind)); ok {
				accounts = append(accounts, account)
			}
		}
	}
	type found struct {
		ID, PartnerID, LoanID uuid.UUID
		Key, Network          string
		Account, Contract     string
	}
	read := func(sql string, args ...any) ([]found, error) {
		var rows []found
		err := r.db.conn(ctx).Raw(sql, args...).Scan(&rows).Error
		return rows, interpretError(err, nil, nil)
	}
	const loanColumns = "l.account_number AS account, COALESCE(l.contract_number, '') AS contract"
	byTransfer, byDebit, byAccount := map[uuid.UUID]found{}, map[string]found{}, map[string]found{}
	if len(transfers) > 0 {
		rows, err := read("SELECT t.id, t.partner_id, t.loan_id, "+loanColumns+" FROM transfers t JOIN loans l ON l.id = t.loan_id WHERE t.id IN ?", transfers)
		if err != nil {
			return nil, err
		}
		for _, f := range rows {
			byTransfer[f.ID] = f
		}
	}
	if len(debits) > 0 {
		rows, err := read("SELECT x.id, x.partner_id, x.loan_id, x.debit_id AS key, x.network, "+loanColumns+
			" FROM repayments x JOIN loans l ON l.id = x.loan_id WHERE x.network IN ? AND x.debit_id IN ?", networks, debits)
		if err != nil {
			return nil, err
		}
		for _, f := range rows {
			byDebit[f.Network+"\x00"+f.Key] = f
		}
	}
	if len(accounts) > 0 {
		rows, err := read("SELECT l.id, l.partner_id, l.id AS loan_id, "+loanColumns+" FROM loans l WHERE l.account_number IN ?", accounts)
		if err != nil {
			return nil, err
		}
		for _, f := range rows {
			byAccount[f.Account] = f
		}
	}
	out := make(map[uuid.UUID]ports.LineObject, len(breaks))
	put := func(b ports.BreakRecord, kind string, f found, ok bool) {
		if ok {
			out[b.ID] = ports.LineObject{Kind: kind, ID: f.ID, PartnerID: f.PartnerID, LoanID: f.LoanID, Account: f.Account, Contract: f.Contract}
		}
	}
	for _, b := range breaks {
		switch kind := breakLineKind(b); kind {
		case domain.LineCredit:
			id, _ := domain.TransferOfLine(b.LineID)
			f, ok := byTransfer[id]
			put(b, "transfer", f, ok)
		case domain.LineDebit:
			f, ok := byDebit[b.Source+"\x00"+b.LineID]
			put(b, "repayment", f, ok)
		case domain.LineDemand, domain.LineLoan:
			f, ok := byAccount[strings.TrimSuffix(b.LineID, ":"+string(kind))]
			put(b, "loan", f, ok)
		}
	}
	return out, nil
}

// breakLineKind is the kind of the line a break is about, on whichever side has it.
func breakLineKind(b ports.BreakRecord) domain.LineKind {
	if b.Ours != nil {
		return b.Ours.Kind
	}
	if b.Theirs != nil {
		return b.Theirs.Kind
	}
	return ""
}
