package console

import (
	"context"
	"errors"
	"math/big"
	"time"

	"github.com/tiyin/tiyin/application"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// Portfolio is the loan portfolio at a business date: each partner's loans and their total,
// by how many days they are overdue, and the portfolio at risk.
type Portfolio struct {
	// Today is the business date of the report: each partner's loans are aged at its own
	// (in the sandbox a partner's clock may be ahead), and Today is the system's.
	Today time.Time
	Rows  []ports.PortfolioRow
	Total ports.PortfolioRow
	// PAR1, PAR30 and PAR90 are the portfolio at risk, in basis points (hundredths of a
	// percent, rounded down): the principal outstanding on loans overdue by more than 0, 30
	// and 90 days, of all principal outstanding.
	PAR1, PAR30, PAR90 int64
	// DueToday and DueThisWeek are the open loans not overdue whose oldest unpaid item falls
	// due today, and in the seven days from today: the collections to expect (the total's).
	DueToday, DueThisWeek ports.Collection
}

// ReportsHandler reads the console's reports.
type ReportsHandler struct {
	Clock      ports.Clock
	BackOffice ports.BackOffice
}

// Portfolio returns the portfolio today (in Tashkent).
func (h *ReportsHandler) Portfolio(ctx context.Context, who Actor) (Portfolio, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return Portfolio{}, err
	}
	today := application.BusinessToday(h.Clock)
	p := Portfolio{Today: today.Date}
	rows, err := h.BackOffice.Portfolio(ctx, today)
	if err != nil {
		return Portfolio{}, err
	}
	p.Rows, p.Total.Partner = rows, "all partners"
	for _, r := range rows {
		p.Total.Open += r.Open
		p.Total.Closed += r.Closed
		p.Total.WrittenOff += r.WrittenOff
		p.Total.WrittenOffPrincipal += r.WrittenOffPrincipal
		p.Total.Outstanding += r.Outstanding
		p.Total.DueToday.Loans += r.DueToday.Loans
		p.Total.DueToday.Principal += r.DueToday.Principal
		p.Total.DueThisWeek.Loans += r.DueThisWeek.Loans
		p.Total.DueThisWeek.Principal += r.DueThisWeek.Principal
		for b := range ports.AgingBuckets {
			p.Total.Count[b] += r.Count[b]
			p.Total.Principal[b] += r.Principal[b]
		}
	}
	at := func(from int) int64 {
		var risk int64
		for b := from; b < ports.AgingBuckets; b++ {
			risk += p.Total.Principal[b]
		}
		if p.Total.Outstanding <= 0 {
			return 0
		}
		// risk × 10 000 may not fit in an int64 for a large portfolio: exact in big integers.
		bp := new(big.Int).Mul(big.NewInt(risk), big.NewInt(10_000))
		return bp.Quo(bp, big.NewInt(p.Total.Outstanding)).Int64()
	}
	p.PAR1, p.PAR30, p.PAR90 = at(ports.Aging1To30), at(ports.Aging31To60), at(ports.AgingOver90)
	p.DueToday, p.DueThisWeek = p.Total.DueToday, p.Total.DueThisWeek
	return p, nil
}

// MaxReportDays is the longest period a daily report covers.
const MaxReportDays = 366

// ErrBadPeriod refuses a report's period that ends before it begins or is longer than
// MaxReportDays.
var ErrBadPeriod = errors.New("the period runs from an earlier day to a later one, at most 366 days")

// DailyReport is each business day's money over a period: loans issued, repayments paid,
// transfers to cards completed; and their totals.
type DailyReport struct {
	From, To time.Time // business dates; To is the last day shown
	Days     []ports.DailyRow
	Total    ports.DailyRow
}

// Daily returns the days from from to to, both included (business dates; zero: the 30 days
// up to the latest partner's today, so that a sandbox partner's days ahead are shown).
func (h *ReportsHandler) Daily(ctx context.Context, who Actor, from, to time.Time) (DailyReport, error) {
	if err := who.may(domain.RoleViewer); err != nil {
		return DailyReport{}, err
	}
	if to.IsZero() {
		to = application.BusinessToday(h.Clock).Latest()
	}
	if from.IsZero() {
		from = to.AddDate(0, 0, -29)
	}
	if to.Before(from) || domain.DaysBetween(from, to) >= MaxReportDays {
		return DailyReport{}, ErrBadPeriod
	}
	days, err := h.BackOffice.Daily(ctx, from, to.AddDate(0, 0, 1))
	if err != nil {
		return DailyReport{}, err
	}
	r := DailyReport{From: from, To: to, Days: days}
	for _, d := range days {
		r.Total.IssuedN += d.IssuedN
		r.Total.RepaidN += d.RepaidN
		r.Total.TransferredN += d.TransferredN
		r.Total.Issued += d.Issued
		r.Total.Repaid += d.Repaid
		r.Total.Transferred += d.Transferred
	}
	return r, nil
}
