package application

import (
	"context"
	"time"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// TrialBalanceHandler reads a day's trial balance: each account kind's opening, debits, credits
// and closing, mapped to the bank's general ledger.
type TrialBalanceHandler struct {
	Books  ports.BooksRepository
	Config Config
}

// TrialBalance is a day's trial balance; balances are debits minus credits.
type TrialBalance struct {
	Date            time.Time
	Accounts        []TrialBalanceAccount
	Debits, Credits int64
	// Closed reports whether the day was closed (for every scope that closed any day).
	Closed bool
	// GL is the day's posts to the bank's general ledger, by sequence, and Acknowledged whether
	// there is one and core banking acknowledged each.
	GL           []ports.GLPost
	Acknowledged bool
	// Report is the loan book's balance sheet and income lines read from these balances.
	Report domain.BookReport
}

// TrialBalanceAccount is one line.
type TrialBalanceAccount struct {
	Kind                              domain.AccountKind
	GL                                string
	Opening, Debits, Credits, Closing int64
}

// Handle reads the day's trial balance, lines in the chart's order of kinds.
func (h *TrialBalanceHandler) Handle(ctx context.Context, day time.Time) (TrialBalance, error) {
	lines, err := h.Books.TrialBalance(ctx, day)
	if err != nil {
		return TrialBalance{}, err
	}
	last, ok, err := h.Books.LastClosed(ctx, "")
	if err != nil {
		return TrialBalance{}, err
	}
	tb := TrialBalance{Date: day, Closed: ok && !last.Before(day)}
	if tb.GL, err = h.Books.GLPosts(ctx, day); err != nil {
		return TrialBalance{}, err
	}
	tb.Acknowledged = ports.GLDayAcknowledged(tb.GL)
	var balances []domain.KindBalance
	by := map[domain.AccountKind]ports.TrialBalanceLine{}
	for _, l := range lines {
		by[l.Kind] = l
	}
	chart := h.Config.chart()
	for _, k := range domain.AccountKinds() {
		l, ok := by[k]
		if !ok {
			continue
		}
		tb.Accounts = append(tb.Accounts, TrialBalanceAccount{Kind: k, GL: chart.GL(k), Opening: l.Opening, Debits: l.Debits,
			Credits: l.Credits, Closing: l.Opening + l.Debits - l.Credits})
		tb.Debits += l.Debits
		tb.Credits += l.Credits
		balances = append(balances, domain.KindBalance{Kind: k, Day: l.Debits - l.Credits, Closing: l.Opening + l.Debits - l.Credits})
	}
	tb.Report = domain.NewBookReport(balances)
	return tb, nil
}
