package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/adapters/store"
	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// TestTheBooksViewsListTheClosesAndSumTheProvisionsByClass: the days closed, the latest first
// with what their close did; and the open loans by the class their last close gave them, with
// their provisions, as their books keep them (a loan not yet closed is in no class).
func TestTheBooksViewsListTheClosesAndSumTheProvisionsByClass(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		books, views := store.NewBooksRepository(s.db), store.NewBooksViews(s.db)
		if c, err := views.Closes(ctx, 10); err != nil || len(c) != 0 {
			t.Fatalf("closes before any: %+v (%v)", c, err)
		}
		if p, err := views.Provisions(ctx); err != nil || len(p) != 0 {
			t.Fatalf("provisions before any close: %+v (%v)", p, err)
		}
		current := []*domain.Loan{s.fundedLoan(t, 1_000_000_000), s.fundedLoan(t, 500_000_000)}
		overdue := s.fundedLoan(t, 300_000_000)
		s.fundedLoan(t, 200_000_000) // never closed: no class
		issued := domain.BusinessDate(t0)
		rules := domain.DefaultBooksRules()
		want := map[string]ports.ProvisionSum{}
		err := s.uow.Do(ctx, func(ctx context.Context) error {
			loans, err := books.LoansToClose(ctx, ports.Partners{}, issued.AddDate(0, 0, 45), uuid.Nil, 10)
			if err != nil {
				return err
			}
			var postings []domain.Posting
			var opened []uuid.UUID
			var closed []*domain.Loan
			for _, l := range loans {
				through := issued.AddDate(0, 0, 2)
				switch l.ID() {
				case overdue.ID():
					through = issued.AddDate(0, 0, 45) // its first date missed
				case current[0].ID(), current[1].ID():
				default:
					continue
				}
				ps, err := l.CloseBooks(issued, through, rules)
				if err != nil {
					return err
				}
				st, _ := l.Books()
				sum := want[st.Class]
				sum.Class, sum.Loans, sum.Provision = st.Class, sum.Loans+1, sum.Provision+st.Provision
				want[st.Class] = sum
				postings, opened, closed = append(postings, ps...), append(opened, l.ID()), append(closed, l)
			}
			return books.SaveClosed(ctx, closed, opened, postings)
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != 2 || want["STANDARD"].Loans != 2 || want["STANDARD"].Provision <= 0 || want["SUBSTANDARD"].Loans != 1 {
			t.Fatalf("the close classified %+v, want two STANDARD loans and one SUBSTANDARD", want)
		}
		got, err := views.Provisions(ctx)
		if err != nil || len(got) != len(want) {
			t.Fatalf("provisions %+v (%v), want %+v", got, err, want)
		}
		for _, g := range got {
			if g != want[g.Class] {
				t.Errorf("class %s: %+v, want %+v", g.Class, g, want[g.Class])
			}
		}

		sandbox := uuid.New().String()
		at := t0.Add(time.Hour).UTC().Truncate(time.Millisecond)
		if err := books.MarkClosed(ctx, "", []time.Time{issued, issued.AddDate(0, 0, 1)},
			ports.ClosedDay{At: at, Loans: 3, Postings: 9, Duration: 1500 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		if err := books.MarkClosed(ctx, sandbox, []time.Time{issued.AddDate(0, 0, 1)}, ports.ClosedDay{At: at, Loans: 1, Postings: 2}); err != nil {
			t.Fatal(err)
		}
		closes, err := views.Closes(ctx, 2)
		if err != nil || len(closes) != 2 {
			t.Fatalf("closes %+v (%v)", closes, err)
		}
		latest := ports.ScopeClosedDay{Scope: "", Day: issued.AddDate(0, 0, 1),
			ClosedDay: ports.ClosedDay{At: at, Loans: 3, Postings: 9, Duration: 1500 * time.Millisecond}}
		if closes[0] != latest || closes[1].Scope != sandbox || !closes[1].Day.Equal(latest.Day) || closes[1].Postings != 2 {
			t.Fatalf("closes %+v, want %+v first, then the sandbox's", closes, latest)
		}
		if all, err := views.Closes(ctx, 10); err != nil || len(all) != 3 || !all[2].Day.Equal(issued) {
			t.Fatalf("all closes %+v (%v)", all, err)
		}
	})
}
