package store

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/ports"
)

type portfolioRow struct {
	Partner            string
	Open, Closed       int
	Outstanding        int64
	WrittenOff         int
	WrittenOffP        int64
	N0, N1, N2, N3, N4 int
	P0, P1, P2, P3, P4 int64
}

// Portfolio implements ports.BackOffice: one statement over the loans, their loan accounts
// (the principal outstanding) and their first unpaid due dates (how overdue).
func (b *BackOffice) Portfolio(ctx context.Context, today ports.Today) ([]ports.PortfolioRow, error) {
	// Each loan is aged at its partner's today.
	var args []any
	since := func(days int) string {
		sql, a := onToday("l.partner_id", "l.first_unpaid_due >= ?", today, -days)
		args = append(args, a...)
		return sql
	}
	current, d30, d60, d90 := since(0), since(30), since(60), since(90)
	var rows []portfolioRow
	err := b.db.conn(ctx).Raw(`
WITH l AS (
  SELECT l.partner_id, l.closed_at IS NULL AND l.written_off_at IS NULL AS is_open,
    l.closed_at IS NOT NULL AS is_closed, COALESCE(a.balance, 0) AS principal, COALESCE(w.balance, 0) AS written_off,
    CASE WHEN l.closed_at IS NOT NULL OR l.written_off_at IS NOT NULL THEN -1
         WHEN l.first_unpaid_due IS NULL OR `+current+` THEN 0
         WHEN `+d30+` THEN 1
         WHEN `+d60+` THEN 2
         WHEN `+d90+` THEN 3
         ELSE 4 END AS bucket
  FROM loans l LEFT JOIN ledger_accounts a ON a.loan_id = l.id AND a.kind = 'LOAN'
  LEFT JOIN ledger_accounts w ON w.loan_id = l.id AND w.kind = 'WRITTEN_OFF')
SELECT p.name AS partner,
  SUM(CASE WHEN l.is_open THEN 1 ELSE 0 END) AS open, SUM(CASE WHEN l.is_closed THEN 1 ELSE 0 END) AS closed,
  SUM(CASE WHEN l.is_open THEN l.principal ELSE 0 END) AS outstanding,
  SUM(CASE WHEN l.is_open OR l.is_closed THEN 0 ELSE 1 END) AS written_off, SUM(l.written_off) AS written_off_p,
  SUM(CASE WHEN l.bucket = 0 THEN 1 ELSE 0 END) AS n0, SUM(CASE WHEN l.bucket = 0 THEN l.principal ELSE 0 END) AS p0,
  SUM(CASE WHEN l.bucket = 1 THEN 1 ELSE 0 END) AS n1, SUM(CASE WHEN l.bucket = 1 THEN l.principal ELSE 0 END) AS p1,
  SUM(CASE WHEN l.bucket = 2 THEN 1 ELSE 0 END) AS n2, SUM(CASE WHEN l.bucket = 2 THEN l.principal ELSE 0 END) AS p2,
  SUM(CASE WHEN l.bucket = 3 THEN 1 ELSE 0 END) AS n3, SUM(CASE WHEN l.bucket = 3 THEN l.principal ELSE 0 END) AS p3,
  SUM(CASE WHEN l.bucket = 4 THEN 1 ELSE 0 END) AS n4, SUM(CASE WHEN l.bucket = 4 THEN l.principal ELSE 0 END) AS p4
FROM l JOIN partners p ON p.id = l.partner_id
GROUP BY p.name ORDER BY p.name`, args...).Scan(&rows).Error
	if err != nil {
		return nil, interpretError(err, nil, nil)
	}
	out := make([]ports.PortfolioRow, len(rows))
	for i, r := range rows {
		out[i] = ports.PortfolioRow{Partner: r.Partner, Open: r.Open, Closed: r.Closed, Outstanding: r.Outstanding,
			WrittenOff: r.WrittenOff, WrittenOffPrincipal: r.WrittenOffP,
			Count: [ports.AgingBuckets]int{r.N0, r.N1, r.N2, r.N3, r.N4}, Principal: [ports.AgingBuckets]int64{r.P0, r.P1, r.P2, r.P3, r.P4}}
	}
	return out, nil
}

// Daily implements ports.BackOffice: three statements, each on a time index of its table (loans
// by issue, repayment requests by check, transfers by creation), grouped by the business day in
// Tashkent (UTC+5, no daylight saving) of the money's moving.
func (b *BackOffice) Daily(ctx context.Context, from, to time.Time) ([]ports.DailyRow, error) {
	day := func(column string) string {
		if b.db.Dialect == Postgres {
			return "to_char(" + column + " AT TIME ZONE 'Asia/Tashkent', 'YYYY-MM-DD')"
		}
		return "strftime('%Y-%m-%d', " + column + ", '+5 hours')"
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
		{"SELECT " + day("issued_at") + " AS day, COUNT(*) AS n, SUM(amount) AS sum FROM loans WHERE issued_at >= ? AND issued_at < ? GROUP BY 1",
			[]any{start, end}, func(r *ports.DailyRow, s sum) { r.IssuedN, r.Issued = s.N, s.Sum }},
		// A request is paid within its quote's life, hours at most after its check.
		{"SELECT " + day("paid_at") + " AS day, COUNT(*) AS n, SUM(amount) AS sum FROM repayments WHERE checked_at >= ? AND checked_at < ? " +
			"AND paid_at >= ? AND paid_at < ? GROUP BY 1", []any{start.Add(-24 * time.Hour), end, start, end},
			func(r *ports.DailyRow, s sum) { r.RepaidN, r.Repaid = s.N, s.Sum }},
		// A transfer completes within days of its creation (it expires otherwise).
		{"SELECT " + day("finished_at") + " AS day, COUNT(*) AS n, SUM(amount) AS sum FROM transfers WHERE created_at >= ? AND created_at < ? " +
			"AND status = 'SUCCESS' AND finished_at >= ? AND finished_at < ? GROUP BY 1", []any{start.AddDate(0, 0, -7), end, start, end},
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

// Collections implements ports.BackOffice: one statement on the open loans' first unpaid due
// dates (their partial index) and their loan accounts.
func (b *BackOffice) Collections(ctx context.Context, today ports.Today) (dueToday, dueThisWeek ports.Collection, err error) {
	var r struct {
		TodayN, WeekN     int
		TodaySum, WeekSum int64
	}
	// Each loan falls due at its partner's today.
	var args []any
	at := func(cond string, days int) string {
		sql, a := onToday("l.partner_id", cond, today, days)
		args = append(args, a...)
		return sql
	}
	err = b.db.conn(ctx).Raw(`
SELECT COALESCE(SUM(CASE WHEN `+at("l.first_unpaid_due = ?", 0)+` THEN 1 ELSE 0 END), 0) AS today_n,
  COALESCE(SUM(CASE WHEN `+at("l.first_unpaid_due = ?", 0)+` THEN COALESCE(a.balance, 0) ELSE 0 END), 0) AS today_sum,
  COUNT(*) AS week_n, COALESCE(SUM(COALESCE(a.balance, 0)), 0) AS week_sum
FROM loans l LEFT JOIN ledger_accounts a ON a.loan_id = l.id AND a.kind = 'LOAN'
WHERE l.closed_at IS NULL AND `+at("l.first_unpaid_due >= ?", 0)+` AND `+at("l.first_unpaid_due <= ?", 6),
		args...).Scan(&r).Error
	if err != nil {
		return ports.Collection{}, ports.Collection{}, interpretError(err, nil, nil)
	}
	return ports.Collection{Loans: r.TodayN, Principal: r.TodaySum}, ports.Collection{Loans: r.WeekN, Principal: r.WeekSum}, nil
}
