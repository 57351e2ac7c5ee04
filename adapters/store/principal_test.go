package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// closeBooksThrough closes every open loan's books from its issue through the day, as the
// daily close does: the principal that fell due unpaid moves from LOAN to OVERDUE_PRINCIPAL.
func (s *suite) closeBooksThrough(t *testing.T, through time.Time) {
	t.Helper()
	ctx := context.Background()
	books := store.NewBooksRepository(s.db)
	rules := domain.DefaultBooksRules()
	err := s.uow.Do(ctx, func(ctx context.Context) error {
		loans, err := books.LoansToClose(ctx, ports.Partners{}, through, uuid.Nil, 100)
		if err != nil {
			return err
		}
		var postings []domain.Posting
		var opened []uuid.UUID
		for _, l := range loans {
			if l.BooksDay().IsZero() {
				opened = append(opened, l.ID())
			}
			ps, err := l.CloseBooks(domain.BusinessDate(t0), through, rules)
			if err != nil {
				return err
			}
			postings = append(postings, ps...)
		}
		return books.SaveClosed(ctx, loans, opened, postings)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// overdueOnBooks is a loan's principal on its LOAN and OVERDUE_PRINCIPAL accounts; it fails the
// test unless the close moved part of it to OVERDUE_PRINCIPAL.
func (s *suite) overdueOnBooks(t *testing.T, l *domain.Loan) (loan, overdue int64) {
	t.Helper()
	ctx := context.Background()
	loan = must(s.ledger.Balance(ctx, domain.LoanAccount(domain.AccountLoan, l.ID())))
	overdue = must(s.ledger.Balance(ctx, domain.LoanAccount(domain.AccountOverduePrincipal, l.ID())))
	if overdue <= 0 || loan+overdue != int64(l.Amount()) {
		t.Fatalf("loan %s: LOAN %d, OVERDUE_PRINCIPAL %d; want part of %d overdue", l.ID(), loan, overdue, l.Amount())
	}
	return loan, overdue
}

// TestPrincipalOutstandingIncludesOverduePrincipal: once the close moved the principal that
// fell due unpaid to OVERDUE_PRINCIPAL, every reader of a loan's principal outstanding (the
// reports page's portfolio, the collections queue, the PAR snapshot, the loans list) still
// finds all of it: LOAN + OVERDUE_PRINCIPAL, each loan counted once.
func TestPrincipalOutstandingIncludesOverduePrincipal(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		first := s.fundedLoan(t, 3_000_000)
		second := s.fundedLoan(t, 5_000_000)
		due, _, _ := first.FirstUnpaidDue()
		today := due.AddDate(0, 0, 10)
		s.closeBooksThrough(t, today)
		s.overdueOnBooks(t, first)
		s.overdueOnBooks(t, second)

		rows, err := s.back.Portfolio(ctx, ports.Today{Date: today})
		want := []ports.PortfolioRow{{Partner: "acme", Open: 2, Outstanding: 8_000_000, Count: [ports.AgingBuckets]int{0, 2, 0, 0, 0},
			Principal: [ports.AgingBuckets]int64{0, 8_000_000, 0, 0, 0}}}
		if err != nil || !reflect.DeepEqual(rows, want) {
			t.Errorf("the portfolio 10 days overdue:\n got %+v\nwant %+v (%v)", rows, want, err)
		}
		// Seen from the due date, the two fall due that day: their principal, all of it.
		rows, err = s.back.Portfolio(ctx, ports.Today{Date: due})
		whole := ports.Collection{Loans: 2, Principal: 8_000_000}
		if err != nil || len(rows) != 1 || rows[0].DueToday != whole || rows[0].DueThisWeek != whole || rows[0].Outstanding != 8_000_000 {
			t.Errorf("the portfolio on the due date: %+v (%v)", rows, err)
		}

		coll := store.NewCollectionsRepository(s.db)
		scopes := []ports.QueueScope{{Today: today}}
		queue := must(coll.Queue(ctx, ports.QueueQuery{Scopes: scopes, MinDays: 1, Limit: 10}))
		if len(queue) != 2 {
			t.Fatalf("the queue: %+v", queue)
		}
		for _, r := range queue {
			if want := map[uuid.UUID]int64{first.ID(): 3_000_000, second.ID(): 5_000_000}[r.LoanID]; r.Principal != want {
				t.Errorf("the queue's loan %s: principal %d, want %d", r.LoanID, r.Principal, want)
			}
		}

		if err := coll.SnapshotPAR(ctx, scopes, today, must(domain.ParseBuckets(domain.DefaultBuckets))); err != nil {
			t.Fatal(err)
		}
		h := must(coll.PARHistory(ctx, today, today))
		if len(h) != 1 || h[0].Loans != 2 || h[0].Principal != 8_000_000 || h[0].Loans1 != 2 || h[0].PAR1 != 8_000_000 || h[0].PAR30 != 0 {
			t.Errorf("the PAR snapshot: %+v", h)
		}

		list := must(s.back.List(ctx, ports.ListQuery{Kind: ports.ListLoans, Today: ports.Today{Date: today}, Limit: 10, Wide: true}))
		if len(list) != 2 {
			t.Fatalf("the loans list: %+v", list)
		}
		for _, r := range list {
			if r.Outstanding != r.Amount {
				t.Errorf("the list's loan %s: outstanding %d, want %d", r.ID, r.Outstanding, r.Amount)
			}
		}
	})
}

// TestClosingLoanBalanceIncludesOverduePrincipal: core banking's loan account holds the whole
// principal outstanding, so tiyin's closing balance of the loan line is LOAN +
// OVERDUE_PRINCIPAL, one line per account: a close that moved overdue principal leaves no
// break against a core banking that reports the whole principal.
func TestClosingLoanBalanceIncludesOverduePrincipal(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		rec := store.NewReconciliationRepository(s.db)
		l := s.fundedLoan(t, 1_000_000)
		due, _, _ := l.FirstUnpaidDue()
		day := due.AddDate(0, 0, 10)
		s.closeBooksThrough(t, day)
		s.overdueOnBooks(t, l)

		ours := must(rec.Balances(ctx, day))
		want := []domain.AccountBalance{{Account: "20208000000000000001", Kind: domain.LineDemand, Balance: 1_000_000},
			{Account: "20208000000000000001", Kind: domain.LineLoan, Balance: 1_000_000}}
		if !reflect.DeepEqual(ours, want) {
			t.Fatalf("tiyin's balances %+v, want %+v", ours, want)
		}
		_, end := domain.BusinessDay(day)
		if matched, breaks := domain.ReconcileBalances(ours, want, end); matched != 2 || len(breaks) != 0 {
			t.Fatalf("against core banking's: %d matched, breaks %+v", matched, breaks)
		}
	})
}
