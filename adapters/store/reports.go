package store

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/ports"
)

// portfolioGroup is one partner's loans in one state or aging bucket, and one span of due
// dates.
type portfolioGroup struct {
	Partner   string
	Bucket    int
	Due       int
	N         int
	Principal int64
}

// Buckets of portfolioGroup besides the aging ones (ports.Aging…).
const (
	bucketClosed     = -2
	bucketWrittenOff = -1
)

// Due spans of portfolioGroup: loans not closed whose first unpaid due date is the partner's
// today, or one of the six days after it.
const (
	dueLater = iota // closed, overdue, or due later (or never)
	dueToday
	dueThisWeek
)

// Portfolio implements ports.BackOffice: one statement over the loans, their principal
// outstanding (LOAN, and OVERDUE_PRINCIPAL where the close moved principal fallen due unpaid)
// and their first unpaid due dates (how overdue, whether due this week), grouped by partner,
// bucket and due span; the pivot is left to Go, and the partners' names are joined on the
// groups. Both kinds come through one join, the OVERDUE_PRINCIPAL account only when it holds
// something, so a loan counts once (its LOAN row, or the empty row of a loan without accounts);
// a second join would scan every loan account again (docs/performance.md: 34–37 ms against 60–66
// at 20 000 loans on the books). Joins, not a subquery a loan, keep PostgreSQL's parallel plan,
// and the collections are counted in the same pass. A second statement sums the principal
// written off, over the written-off loans alone.
func (b *BackOffice) Portfolio(ctx context.Context, today ports.Today) ([]ports.PortfolioRow, error) {
	// Each loan is aged, and falls due, at its partner's today. The arguments follow the
	// conditions in the statement's order.
	var args []any
	since := func(days int) string {
		sql, a := onToday("l.partner_id", "l.first_unpaid_due >= ?", today, -days)
		args = append(args, a...)
		return sql
	}
	current, d30, d60, d90 := since(0), since(30), since(60), since(90)
	on := func(cond string, days int) string {
		sql, a := onToday("l.partner_id", cond, today, days)
		args = append(args, a...)
		return sql
	}
	onTheDay, fromToday, toTheSixth := on("l.first_unpaid_due = ?", 0), on("l.first_unpaid_due >= ?", 0), on("l.first_unpaid_due <= ?", 6)
	var groups []portfolioGroup
	err := b.db.conn(ctx).Raw(`
SELECT p.name AS partner, g.bucket, g.due, g.n, g.principal FROM (
  SELECT l.partner_id,
    CASE WHEN l.closed_at IS NOT NULL THEN -2
         WHEN l.written_off_at IS NOT NULL THEN -1
         WHEN l.first_unpaid_due IS NULL OR `+current+` THEN 0
         WHEN `+d30+` THEN 1
         WHEN `+d60+` THEN 2
         WHEN `+d90+` THEN 3
         ELSE 4 END AS bucket,
    CASE WHEN l.closed_at IS NOT NULL THEN 0
         WHEN `+onTheDay+` THEN 1
         WHEN `+fromToday+` AND `+toTheSixth+` THEN 2
         ELSE 0 END AS due,
    SUM(CASE WHEN a.kind = 'OVERDUE_PRINCIPAL' THEN 0 ELSE 1 END) AS n, COALESCE(SUM(a.balance), 0) AS principal
  FROM loans l LEFT JOIN ledger_accounts a ON a.loan_id = l.id
    AND (a.kind = 'LOAN' OR a.balance <> 0 AND a.kind = 'OVERDUE_PRINCIPAL')
  GROUP BY 1, 2, 3) g
JOIN partners p ON p.id = g.partner_id
ORDER BY p.name, g.bucket, g.due`, args...).Scan(&groups).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	// The principal written off and not recovered: a second statement, over the written-off
	// loans alone and their accounts that hold it, each through an index of its own (migration
	// 00041): the written-off memo of the accrual books (MEMO_WRITTEN_OFF), or, for a loan
	// written off on the cash basis before every write-off kept the books, WRITTEN_OFF. Every
	// loan on the books has a MEMO_WRITTEN_OFF account: joined to every loan, it would cost a
	// hash of as many accounts as loans (2 ms this way for 500 written off among 100 000).
	var writtenOff []struct {
		Partner string
		Sum     int64
	}
	err = b.db.conn(ctx).Raw(`SELECT p.name AS partner, COALESCE(SUM(a.balance), 0) AS sum
  FROM loans l JOIN ledger_accounts a ON a.loan_id = l.id AND a.kind IN ('WRITTEN_OFF', 'MEMO_WRITTEN_OFF')
  JOIN partners p ON p.id = l.partner_id
  WHERE l.written_off_at IS NOT NULL GROUP BY p.name`).Scan(&writtenOff).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	offBy := map[string]int64{}
	for _, w := range writtenOff {
		offBy[w.Partner] = w.Sum
	}
	var out []ports.PortfolioRow
	for _, g := range groups {
		if len(out) == 0 || out[len(out)-1].Partner != g.Partner {
			out = append(out, ports.PortfolioRow{Partner: g.Partner, WrittenOffPrincipal: offBy[g.Partner]})
		}
		r := &out[len(out)-1]
		switch g.Due {
		case dueToday:
			r.DueToday.Loans += g.N
			r.DueToday.Principal += g.Principal
			fallthrough
		case dueThisWeek:
			r.DueThisWeek.Loans += g.N
			r.DueThisWeek.Principal += g.Principal
		}
		switch g.Bucket {
		case bucketClosed:
			r.Closed += g.N
		case bucketWrittenOff:
			r.WrittenOff += g.N
		default:
			r.Open += g.N
			r.Outstanding += g.Principal
			r.Count[g.Bucket] += g.N
			r.Principal[g.Bucket] += g.Principal
		}
	}
	return out, nil
}

// Daily implements ports.BackOffice: three statements, each on a time index of its table (loans
// by issue, repayment requests by check, transfers by creation), grouped by the business day in
// Tashkent (UTC+5, no daylight saving) of the money's moving.
//
// On PostgreSQL each row is put in its day by date_bin, arithmetic on the instant, and only
// each day's group is named by to_char: naming every row (to_char of the time in Tashkent)
// took two thirds of the loans' statement at 100 000 loans in the period.
func (b *BackOffice) Daily(ctx context.Context, from, to time.Time) ([]ports.DailyRow, error) {
	// statement sums one table's selected rows by the day of the column.
	statement := func(column, selected string) string {
		if b.db.Dialect == Postgres {
			// Days of 24 hours from a midnight in Tashkent; each group's instant is its day's
			// midnight there.
			bin := "date_bin('1 day', " + column + ", '2000-01-01 00:00:00+05')"
			return "SELECT to_char(" + bin + " AT TIME ZONE 'Asia/Tashkent', 'YYYY-MM-DD') AS day, COUNT(*) AS n, SUM(amount) AS sum FROM " +
				selected + " GROUP BY " + bin
		}
		return "SELECT strftime('%Y-%m-%d', " + column + ", '+5 hours') AS day, COUNT(*) AS n, SUM(amount) AS sum FROM " + selected + " GROUP BY 1"
	}
	// Business dates are midnight UTC of the Tashkent date; the instants of a Tashkent day
	// start five hours earlier.
	start, end := from.Add(-5*time.Hour), to.Add(-5*time.Hour)
	type sum struct {
		Day string
		N   int
		Sum int64
	}
	queries := []struct {
		sql  string
		args []any
		set  func(r *ports.DailyRow, s sum)
	}{
		{statement("issued_at", "loans WHERE issued_at >= ? AND issued_at < ?"),
			[]any{start, end}, func(r *ports.DailyRow, s sum) { r.IssuedN, r.Issued = s.N, s.Sum }},
		// A request is paid within its quote's life, hours at most after its check.
		{statement("paid_at", "repayments WHERE checked_at >= ? AND checked_at < ? AND paid_at >= ? AND paid_at < ?"),
			[]any{start.Add(-24 * time.Hour), end, start, end},
			func(r *ports.DailyRow, s sum) { r.RepaidN, r.Repaid = s.N, s.Sum }},
		// A transfer completes within days of its creation (it expires otherwise).
		{statement("finished_at", "transfers WHERE created_at >= ? AND created_at < ? AND status = 'SUCCESS' AND finished_at >= ? AND finished_at < ?"),
			[]any{start.AddDate(0, 0, -7), end, start, end},
			func(r *ports.DailyRow, s sum) { r.TransferredN, r.Transferred = s.N, s.Sum }},
	}
	rows := map[string]*ports.DailyRow{}
	var out []ports.DailyRow
	for d := from; d.Before(to); d = d.AddDate(0, 0, 1) {
		out = append(out, ports.DailyRow{Day: d})
	}
	for i := range out {
		rows[out[i].Day.Format(time.DateOnly)] = &out[i]
	}
	for _, q := range queries {
		var sums []sum
		if err := b.db.conn(ctx).Raw(q.sql, q.args...).Scan(&sums).Error; err != nil {
			return nil, interpretError(err, nil, nil)
		}
		for _, s := range sums {
			if r, ok := rows[s.Day]; ok {
				q.set(r, s)
			}
		}
	}
	return out, nil
}
