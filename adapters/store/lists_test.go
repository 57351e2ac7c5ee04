package store_test

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/ports"
)

// TestConsoleLists: every filter selects what it names and nothing else, in the order asked;
// pages taken one after another by keyset hold every row once; a filter or order a list does not
// have is refused.
func TestConsoleLists(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		other := s.newPartner(t, "other")
		type made struct {
			id      uuid.UUID
			partner uuid.UUID
			at      time.Time
			amount  int64
			closed  bool
		}
		var apps, loans []made
		for i := range 12 {
			p := s.partner
			if i%3 == 0 {
				p = other
			}
			at := t0.Add(time.Duration(i) * time.Hour)
			a := s.storedAt(t, p, "31234567890123", at)
			apps = append(apps, made{id: a.ID(), partner: p.ID, at: at})
			// Loan amounts repeat (ties are ordered by id) and do not follow time.
			amount := int64(1_000_000 * (1 + (i*7)%5))
			st := domain.LoanState{ID: uuid.New(), ApplicationID: a.ID(), PartnerID: p.ID, Amount: domain.Amount(amount), MonthPeriod: 12,
				Rate: must(domain.PercentFromHundredths(2850)), ScheduleType: domain.ScheduleAnnuity, AccountNumber: "20208000123456789012",
				IssuedAt: at}
			if i%4 == 1 {
				st.ClosedAt = at.Add(time.Hour)
			}
			if err := s.loans.Create(ctx, domain.RestoreLoan(st)); err != nil {
				t.Fatal(err)
			}
			loans = append(loans, made{id: st.ID, partner: p.ID, at: at, amount: amount, closed: !st.ClosedAt.IsZero()})
		}
		ids := func(rows []ports.ListRow) []uuid.UUID {
			out := make([]uuid.UUID, len(rows))
			for i, r := range rows {
				out[i] = r.ID
			}
			return out
		}
		want := func(all []made, keep func(m made) bool, order func(a, b made) int) []uuid.UUID {
			var sel []made
			for _, m := range all {
				if keep(m) {
					sel = append(sel, m)
				}
			}
			slices.SortFunc(sel, order)
			out := make([]uuid.UUID, len(sel))
			for i, m := range sel {
				out[i] = m.id
			}
			return out
		}
		newest := func(a, b made) int {
			if c := b.at.Compare(a.at); c != 0 {
				return c
			}
			return compareIDs(b.id, a.id)
		}
		largest := func(a, b made) int {
			if a.amount != b.amount {
				return int(b.amount - a.amount)
			}
			return compareIDs(b.id, a.id)
		}
		reverse := func(f func(a, b made) int) func(a, b made) int { return func(a, b made) int { return f(b, a) } }
		all := func(made) bool { return true }
		for _, tt := range []struct {
			name string
			q    ports.ListQuery
			want []uuid.UUID
		}{
			{"applications, newest first", ports.ListQuery{Kind: ports.ListApplications}, want(apps, all, newest)},
			{"applications, oldest first", ports.ListQuery{Kind: ports.ListApplications, Ascending: true}, want(apps, all, reverse(newest))},
			{"one partner's", ports.ListQuery{Kind: ports.ListApplications, PartnerID: other.ID},
				want(apps, func(m made) bool { return m.partner == other.ID }, newest)},
			{"made in a window", ports.ListQuery{Kind: ports.ListApplications, From: t0.Add(2 * time.Hour), To: t0.Add(5 * time.Hour)},
				want(apps, func(m made) bool { return !m.at.Before(t0.Add(2*time.Hour)) && m.at.Before(t0.Add(5*time.Hour)) }, newest)},
			{"in a status", ports.ListQuery{Kind: ports.ListApplications, Status: "NEW"}, want(apps, all, newest)},
			{"in a status none is in", ports.ListQuery{Kind: ports.ListApplications, Status: "COMPLETED"}, nil},
			{"with an offer of at least (none has one)", ports.ListQuery{Kind: ports.ListApplications, MinAmount: 1}, nil},
			{"open loans", ports.ListQuery{Kind: ports.ListLoans, Status: "OPEN"}, want(loans, func(m made) bool { return !m.closed }, newest)},
			{"closed loans", ports.ListQuery{Kind: ports.ListLoans, Status: "CLOSED"}, want(loans, func(m made) bool { return m.closed }, newest)},
			{"loans by amount", ports.ListQuery{Kind: ports.ListLoans, Sort: ports.SortAmount}, want(loans, all, largest)},
			{"loans by amount, smallest first", ports.ListQuery{Kind: ports.ListLoans, Sort: ports.SortAmount, Ascending: true},
				want(loans, all, reverse(largest))},
			{"loans in an amount range", ports.ListQuery{Kind: ports.ListLoans, MinAmount: 2_000_000, MaxAmount: 4_000_000},
				want(loans, func(m made) bool { return m.amount >= 2_000_000 && m.amount <= 4_000_000 }, newest)},
			{"one partner's open loans", ports.ListQuery{Kind: ports.ListLoans, Status: "OPEN", PartnerID: s.partner.ID},
				want(loans, func(m made) bool { return !m.closed && m.partner == s.partner.ID }, newest)},
		} {
			// Whole, then in pages of 5 by keyset: the same rows, once each, in the same order.
			q := tt.q
			q.Limit = 100
			rows, err := s.back.List(ctx, q)
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			if !slices.Equal(ids(rows), tt.want) {
				t.Errorf("%s:\n got %v\nwant %v", tt.name, ids(rows), tt.want)
			}
			var paged []uuid.UUID
			q.Limit = 5
			for range 10 {
				page, err := s.back.List(ctx, q)
				if err != nil {
					t.Fatalf("%s, paged: %v", tt.name, err)
				}
				paged = append(paged, ids(page)...)
				if len(page) < q.Limit {
					break
				}
				q.After = &page[len(page)-1]
			}
			if !slices.Equal(paged, tt.want) {
				t.Errorf("%s, in pages of 5:\n got %v\nwant %v", tt.name, paged, tt.want)
			}
		}
		// Days overdue: at a day after every first item's date, the open loans overdue by at most
		// that many days; the closed ones never.
		due, _, _ := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_000_000, MonthPeriod: 12, Rate: must(domain.PercentFromHundredths(2850)),
			ScheduleType: domain.ScheduleAnnuity, IssuedAt: t0}).FirstUnpaidDue()
		today := due.AddDate(0, 0, 10)
		for _, tt := range []struct {
			days int
			want []uuid.UUID
		}{
			{9, want(loans, func(m made) bool { return !m.closed }, newest)},
			{11, nil},
		} {
			rows, err := s.back.List(ctx, ports.ListQuery{Kind: ports.ListLoans, MinDaysOverdue: tt.days, Today: ports.Today{Date: today}, Limit: 100})
			if err != nil || !slices.Equal(ids(rows), tt.want) {
				t.Errorf("overdue %d days or more: %v %v, want %v", tt.days, ids(rows), err, tt.want)
			}
			for _, r := range rows {
				if r.DaysOverdue < 9 || r.DaysOverdue > 10 {
					t.Errorf("loan %s: %d days overdue", r.ID, r.DaysOverdue)
				}
			}
		}
		if n, err := s.db.BackfillFirstUnpaidDue(ctx); err != nil || n != 0 {
			t.Fatalf("a backfill with nothing to fill set %d: %v", n, err)
		}
		if err := s.db.Gorm.Exec("UPDATE loans SET first_unpaid_due = NULL").Error; err != nil {
			t.Fatal(err)
		}
		if n, err := s.db.BackfillFirstUnpaidDue(ctx); err != nil || n != len(want(loans, func(m made) bool { return !m.closed }, newest)) {
			t.Fatalf("the backfill set %d: %v", n, err)
		}
		if rows, err := s.back.List(ctx, ports.ListQuery{Kind: ports.ListLoans, MinDaysOverdue: 9, Today: ports.Today{Date: today}, Limit: 100}); err != nil ||
			!slices.Equal(ids(rows), want(loans, func(m made) bool { return !m.closed }, newest)) {
			t.Fatalf("after the backfill: %v %v", ids(rows), err)
		}
		rows, err := s.back.List(ctx, ports.ListQuery{Kind: ports.ListLoans, Limit: 1})
		if err != nil || len(rows) != 1 || rows[0].Partner != "acme" && rows[0].Partner != "other" || rows[0].Amount == 0 || rows[0].Status != "OPEN" {
			t.Errorf("a loan's row: %+v, %v", rows, err)
		}
		for name, q := range map[string]ports.ListQuery{
			"no such list":                                    {Kind: "ledger"},
			"applications by amount":                          {Kind: ports.ListApplications, Sort: ports.SortAmount},
			"an unknown order":                                {Kind: ports.ListLoans, Sort: "name"},
			"a loan status it does not have":                  {Kind: ports.ListLoans, Status: "NEW"},
			"a repayment request's status it does not have":   {Kind: ports.ListRepayments, Status: "SUCCESS"},
			"repayment requests by amount (not all are paid)": {Kind: ports.ListRepayments, Sort: ports.SortAmount},
			"cards by amount":                                 {Kind: ports.ListCards, Sort: ports.SortAmount},
			"card orders of an amount":                        {Kind: ports.ListCardOrders, MinAmount: 1},
		} {
			if _, err := s.back.List(ctx, q); !errors.Is(err, ports.ErrBadList) {
				t.Errorf("%s: %v, want ErrBadList", name, err)
			}
		}
	})
}

// TestEveryConsoleListAnswers: each list's statement runs on both databases, with every filter
// and order it has.
func TestEveryConsoleListAnswers(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		after := &ports.ListRow{ID: uuid.New(), At: t0, Amount: 5}
		for kind, status := range map[string]string{ports.ListApplications: "NEW", ports.ListLoans: "CLOSED", ports.ListTransfers: "SUCCESS",
			ports.ListRepayments: "PAID", ports.ListCardOrders: "PENDING", ports.ListCards: "ACTIVE"} {
			q := ports.ListQuery{Kind: kind, Status: status, PartnerID: s.partner.ID, From: t0, To: t0.Add(time.Hour), After: after, Limit: 5}
			if _, err := s.back.List(ctx, q); err != nil {
				t.Errorf("%s: %v", kind, err)
			}
			if kind == ports.ListLoans || kind == ports.ListTransfers {
				q.Sort, q.Ascending, q.MinAmount, q.MaxAmount = ports.SortAmount, true, 1, 100
				if _, err := s.back.List(ctx, q); err != nil {
					t.Errorf("%s by amount: %v", kind, err)
				}
			}
		}
	})
}

// storedAt stores a new application of the partner's client with the PINFL, made at at.
func (s *suite) storedAt(t *testing.T, p domain.Partner, pinfl string, at time.Time) *domain.Application {
	t.Helper()
	phone, _ := domain.ParsePhone("998901234567")
	a, err := domain.NewApplication(domain.NewApplicationParams{ID: uuid.New(), PartnerID: p.ID, ExternalID: uuid.New(), Phone: phone,
		ClientData: clientData(t, pinfl), AgreementAccepted: true, Now: at})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.apps.Create(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	return a
}

// compareIDs orders ids as both databases do: by their bytes.
func compareIDs(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) }

// TestSearchPagesAPhonesHits: a phone's hits come newest first with when, whose and how much,
// and pages taken by keyset hold each once.
func TestSearchPagesAPhonesHits(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		var want []uuid.UUID
		for i := range 7 {
			a := s.storedAt(t, s.partner, "31234567890123", t0.Add(time.Duration(i)*time.Minute))
			want = append([]uuid.UUID{a.ID()}, want...)
		}
		var index string
		if err := s.db.Gorm.Raw("SELECT phone_index FROM applications LIMIT 1").Scan(&index).Error; err != nil || index == "" {
			t.Fatalf("phone index %q: %v", index, err)
		}
		q := ports.SearchQuery{PhoneIndexes: []string{index}, Limit: 3}
		var got []uuid.UUID
		for range 5 {
			hits, err := s.back.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if h.Partner != "acme" || h.At.IsZero() || h.Kind != "application" {
					t.Fatalf("a hit without its partner or time: %+v", h)
				}
				got = append(got, h.ID)
			}
			if len(hits) < q.Limit {
				break
			}
			q.After = &hits[len(hits)-1]
		}
		if !slices.Equal(got, want) {
			t.Fatalf("the pages of hits:\n got %v\nwant %v", got, want)
		}
	})
}

// TestPortfolioByPartnerAndDaysOverdue: each partner's open and closed loans, the principal on
// their loan accounts, and both by how overdue the loans are at a day.
func TestPortfolioByPartnerAndDaysOverdue(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		other := s.newPartner(t, "other")
		first := s.fundedLoanOf(t, s.partner, 3_000_000, time.Time{})
		s.fundedLoanOf(t, s.partner, 5_000_000, time.Time{})
		s.fundedLoanOf(t, other, 7_000_000, time.Time{})
		s.fundedLoanOf(t, other, 1_000_000, t0.Add(time.Hour))
		due, _, _ := first.FirstUnpaidDue()
		rows, err := s.back.Portfolio(ctx, ports.Today{Date: due.AddDate(0, 0, 45)}) // every open loan 45 days overdue
		if err != nil || len(rows) != 2 {
			t.Fatalf("%+v %v", rows, err)
		}
		want := []ports.PortfolioRow{
			{Partner: "acme", Open: 2, Outstanding: 8_000_000, Count: [ports.AgingBuckets]int{0, 0, 2, 0, 0},
				Principal: [ports.AgingBuckets]int64{0, 0, 8_000_000, 0, 0}},
			{Partner: "other", Open: 1, Closed: 1, Outstanding: 7_000_000, Count: [ports.AgingBuckets]int{0, 0, 1, 0, 0},
				Principal: [ports.AgingBuckets]int64{0, 0, 7_000_000, 0, 0}},
		}
		if !reflect.DeepEqual(rows, want) {
			t.Fatalf("45 days overdue:\n got %+v\nwant %+v", rows, want)
		}
		if rows, _ = s.back.Portfolio(ctx, ports.Today{Date: due}); rows[0].Count[ports.AgingCurrent] != 2 || rows[1].Principal[ports.AgingCurrent] != 7_000_000 {
			t.Fatalf("on the first due date nothing is overdue: %+v", rows)
		}
		if rows, _ = s.back.Portfolio(ctx, ports.Today{Date: due.AddDate(0, 0, 91)}); rows[0].Principal[ports.AgingOver90] != 8_000_000 {
			t.Fatalf("91 days later: %+v", rows)
		}
		// Collections: the three open loans fall due on due; the closed one never.
		for _, tt := range []struct {
			name        string
			today       time.Time
			today3, wk3 bool
		}{
			{"on the day", due, true, true},
			{"three days before", due.AddDate(0, 0, -3), false, true},
			{"seven days before", due.AddDate(0, 0, -7), false, false},
			{"the day after (overdue)", due.AddDate(0, 0, 1), false, false},
		} {
			byPartner, err := s.back.Portfolio(ctx, ports.Today{Date: tt.today})
			var today, week ports.Collection
			for _, r := range byPartner {
				today.Loans, today.Principal = today.Loans+r.DueToday.Loans, today.Principal+r.DueToday.Principal
				week.Loans, week.Principal = week.Loans+r.DueThisWeek.Loans, week.Principal+r.DueThisWeek.Principal
			}
			wantN := func(b bool) int {
				if b {
					return 3
				}
				return 0
			}
			if err != nil || today.Loans != wantN(tt.today3) || week.Loans != wantN(tt.wk3) ||
				(tt.wk3 && week.Principal != 15_000_000) || (tt.today3 && today.Principal != 15_000_000) {
				t.Errorf("%s: today %+v, this week %+v, %v", tt.name, today, week, err)
			}
			if tt.wk3 && (byPartner[0].DueThisWeek != ports.Collection{Loans: 2, Principal: 8_000_000} ||
				byPartner[1].DueThisWeek != ports.Collection{Loans: 1, Principal: 7_000_000}) {
				t.Errorf("%s: each partner's week: %+v, %+v", tt.name, byPartner[0].DueThisWeek, byPartner[1].DueThisWeek)
			}
			zero, six := 0, 6
			for _, within := range []*int{&zero, &six} {
				list, err := s.back.List(ctx, ports.ListQuery{Kind: ports.ListLoans, DueWithinDays: within, Today: ports.Today{Date: tt.today}, Limit: 10})
				want := tt.wk3
				if *within == 0 {
					want = tt.today3
				}
				if err != nil || len(list) != wantN(want) {
					t.Errorf("%s, due within %d days: %d loans, %v", tt.name, *within, len(list), err)
				}
			}
		}

		// A written-off loan leaves the open portfolio: counted apart, its principal on its
		// written-off memo (the write-off opens its books, as the approval does), or on its
		// WRITTEN_OFF account for a loan written off on the cash basis before.
		gone := s.fundedLoanOf(t, other, 2_000_000, time.Time{})
		if err := s.uow.Do(ctx, func(ctx context.Context) error {
			return s.loans.Update(ctx, gone.ID(), func(l *domain.Loan) error {
				p, err := l.WriteOff(uuid.New(), t0.Add(time.Hour))
				if err != nil {
					return err
				}
				for _, k := range domain.BooksAccountKinds {
					if err := s.ledger.OpenAccount(ctx, domain.LoanAccount(k, l.ID())); err != nil {
						return err
					}
				}
				return s.ledger.Post(ctx, *p)
			})
		}); err != nil {
			t.Fatal(err)
		}
		rows, err = s.back.Portfolio(ctx, ports.Today{Date: due.AddDate(0, 0, 45)})
		want[1].WrittenOff, want[1].WrittenOffPrincipal = 1, 2_000_000
		if err != nil || !reflect.DeepEqual(rows, want) {
			t.Fatalf("with a loan written off:\n got %+v\nwant %+v (%v)", rows, want, err)
		}
		// One written off by an earlier version, on the cash basis: its principal to WRITTEN_OFF.
		cash := s.fundedLoanOf(t, other, 3_000_000, time.Time{})
		if err := s.uow.Do(ctx, func(ctx context.Context) error {
			return s.loans.Update(ctx, cash.ID(), func(l *domain.Loan) error {
				if _, err := l.WriteOff(uuid.New(), t0.Add(time.Hour)); err != nil {
					return err
				}
				a := domain.LoanAccount(domain.AccountWrittenOff, l.ID())
				if err := s.ledger.OpenAccount(ctx, a); err != nil {
					return err
				}
				p, err := domain.Move(uuid.New(), domain.PostingWriteOff, l.ID(), t0.Add(time.Hour), 3_000_000, a,
					domain.LoanAccount(domain.AccountLoan, l.ID()))
				if err != nil {
					return err
				}
				return s.ledger.Post(ctx, p)
			})
		}); err != nil {
			t.Fatal(err)
		}
		rows, err = s.back.Portfolio(ctx, ports.Today{Date: due.AddDate(0, 0, 45)})
		want[1].WrittenOff, want[1].WrittenOffPrincipal = 2, 5_000_000
		if err != nil || !reflect.DeepEqual(rows, want) {
			t.Fatalf("with a loan written off on the cash basis too:\n got %+v\nwant %+v (%v)", rows, want, err)
		}
	})
}

// TestEachPartnersLoansAreAgedOnItsOwnClock: with one partner's sandbox clock ahead, a view
// across partners counts that partner's loans at its own date and every other at the system's.
func TestEachPartnersLoansAreAgedOnItsOwnClock(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		other := s.newPartner(t, "other")
		mine := s.fundedLoanOf(t, s.partner, 3_000_000, time.Time{})
		ahead := s.fundedLoanOf(t, other, 7_000_000, time.Time{})
		due, _, _ := mine.FirstUnpaidDue()
		today := ports.Today{Date: due, Ahead: map[uuid.UUID]time.Time{other.ID: due.AddDate(0, 0, 105)}}
		rows, err := s.back.List(ctx, ports.ListQuery{Kind: ports.ListLoans, MinDaysOverdue: 1, Today: today, Limit: 10})
		if err != nil || len(rows) != 1 || rows[0].ID != ahead.ID() || rows[0].DaysOverdue != 105 {
			t.Fatalf("overdue at least a day: %+v %v, want the other partner's loan, 105 days", rows, err)
		}
		all, err := s.back.List(ctx, ports.ListQuery{Kind: ports.ListLoans, Today: today, Limit: 10})
		if err != nil || len(all) != 2 {
			t.Fatalf("every loan: %+v %v", all, err)
		}
		for _, r := range all {
			if want := map[uuid.UUID]int{mine.ID(): 0, ahead.ID(): 105}[r.ID]; r.DaysOverdue != want {
				t.Errorf("loan %s: %d days overdue, want %d", r.ID, r.DaysOverdue, want)
			}
		}
		// acme's loan falls due today; the other partner's, 105 days overdue on its clock, does not.
		p, err := s.back.Portfolio(ctx, today)
		want := []ports.PortfolioRow{
			{Partner: "acme", Open: 1, Outstanding: 3_000_000, Count: [ports.AgingBuckets]int{1, 0, 0, 0, 0},
				Principal: [ports.AgingBuckets]int64{3_000_000, 0, 0, 0, 0},
				DueToday:  ports.Collection{Loans: 1, Principal: 3_000_000}, DueThisWeek: ports.Collection{Loans: 1, Principal: 3_000_000}},
			{Partner: "other", Open: 1, Outstanding: 7_000_000, Count: [ports.AgingBuckets]int{0, 0, 0, 0, 1},
				Principal: [ports.AgingBuckets]int64{0, 0, 0, 0, 7_000_000}},
		}
		if err != nil || !reflect.DeepEqual(p, want) {
			t.Fatalf("the portfolio:\n got %+v\nwant %+v (%v)", p, want, err)
		}
		wide, err := s.back.List(ctx, ports.ListQuery{Kind: ports.ListLoans, Today: today, Limit: 10, Wide: true, Contacts: true})
		if err != nil || len(wide) != 2 {
			t.Fatalf("a wide list: %+v %v", wide, err)
		}
		for _, r := range wide {
			if r.Loan == nil || r.Loan.ID() != r.ID || r.Outstanding != r.Amount || r.Contact == nil || r.Contact.Name == "" || r.Contact.Phone == "" {
				t.Errorf("a wide row: %+v %+v", r, r.Contact)
			}
		}
		if narrow, _ := s.back.List(ctx, ports.ListQuery{Kind: ports.ListLoans, Today: today, Limit: 10, Wide: true}); narrow[0].Contact != nil {
			t.Error("contacts not asked for, yet read")
		}
		zero := 0
		if rows, err := s.back.List(ctx, ports.ListQuery{Kind: ports.ListLoans, DueWithinDays: &zero, Today: today, Limit: 10}); err != nil ||
			len(rows) != 1 || rows[0].ID != mine.ID() {
			t.Fatalf("due today: %+v %v", rows, err)
		}
	})
}

// TestDailyMoneyIsCountedByTheDayInTashkent: a loan issued at 19:30 UTC is the next day's in
// Tashkent (UTC+5); every day of the period has its row, days without money too.
func TestDailyMoneyIsCountedByTheDayInTashkent(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		day := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC) // a business date
		for _, at := range []time.Time{
			time.Date(2026, 3, 10, 10, 0, 0, 0, time.UTC),  // 15:00 in Tashkent, on the 10th
			time.Date(2026, 3, 10, 19, 30, 0, 0, time.UTC), // 00:30 on the 11th
			time.Date(2026, 3, 9, 18, 59, 0, 0, time.UTC),  // 23:59 on the 9th: before the period
		} {
			a := s.newApplication(t, s.partner, uuid.New())
			if err := s.apps.Create(ctx, a); err != nil {
				t.Fatal(err)
			}
			l := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), ApplicationID: a.ID(), PartnerID: s.partner.ID, Amount: 2_000_000,
				MonthPeriod: 12, Rate: must(domain.PercentFromHundredths(2850)), ScheduleType: domain.ScheduleAnnuity,
				AccountNumber: "20208000123456789012", IssuedAt: at})
			if err := s.loans.Create(ctx, l); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := s.back.Daily(ctx, day, day.AddDate(0, 0, 3))
		if err != nil || len(rows) != 3 {
			t.Fatalf("%+v %v", rows, err)
		}
		for i, want := range []int{1, 1, 0} {
			r := rows[i]
			if !r.Day.Equal(day.AddDate(0, 0, i)) || r.IssuedN != want || r.Issued != int64(want)*2_000_000 || r.RepaidN != 0 || r.TransferredN != 0 {
				t.Errorf("day %d: %+v, want %d loans issued", i, r, want)
			}
		}
	})
}

// TestDailyMoneyChangesDayAtMidnightInTashkent: a loan issued, a repayment paid and a transfer
// completed at 23:59:59.999999 in Tashkent are that day's; at 00:00 the next day's.
func TestDailyMoneyChangesDayAtMidnightInTashkent(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		day := domain.BusinessDate(t0)                       // the 22nd; t0 is 14:30 on it in Tashkent
		midnight := day.AddDate(0, 0, 1).Add(-5 * time.Hour) // 19:00 UTC: 00:00 on the 23rd in Tashkent
		l := s.fundedLoan(t, 10_000_000)                     // issued at t0
		for i, at := range []time.Time{midnight.Add(-time.Microsecond), midnight} {
			n := int64(i + 1)
			a := s.newApplication(t, s.partner, uuid.New())
			if err := s.apps.Create(ctx, a); err != nil {
				t.Fatal(err)
			}
			issued := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), ApplicationID: a.ID(), PartnerID: s.partner.ID,
				Amount: domain.Amount(n * 1_000_000), MonthPeriod: 12, Rate: must(domain.PercentFromHundredths(2850)),
				ScheduleType: domain.ScheduleAnnuity, AccountNumber: "20208000123456789012", IssuedAt: at})
			if err := s.loans.Create(ctx, issued); err != nil {
				t.Fatal(err)
			}
			r := must(domain.NewRepayment(uuid.New(), must(s.loans.Get(ctx, l.ID())), 0, at))
			if err := s.repayments.Create(ctx, r); err != nil {
				t.Fatal(err)
			}
			if err := s.payAt(r.ID(), n*100_000, fmt.Sprintf("D-%d", i), at); err != nil {
				t.Fatal(err)
			}
			tr := domain.NewTransfer(domain.NewTransferParams{ID: uuid.New(), PartnerID: s.partner.ID, ApplicationID: l.ApplicationID(),
				LoanID: l.ID(), ExternalID: uuid.New(), MaskedPAN: "860012******9012", Network: domain.NetworkUzcard, CardHolder: "AZIZ KARIMOV",
				Amount: domain.Amount(n * 10_000), CreditToken: "CT-1", Now: at.Add(-time.Minute)})
			if err := s.transfers.Create(ctx, tr); err != nil {
				t.Fatal(err)
			}
			err := s.transfers.Update(ctx, tr.ID(), func(x *domain.Transfer) error {
				if err := x.StartProcessing(at.Add(-time.Minute)); err != nil {
					return err
				}
				return x.Settle(true, "", at)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		rows, err := s.back.Daily(ctx, day, day.AddDate(0, 0, 2))
		if err != nil || len(rows) != 2 {
			t.Fatalf("%+v %v", rows, err)
		}
		for i, want := range []ports.DailyRow{
			{IssuedN: 2, Issued: 11_000_000, RepaidN: 1, Repaid: 100_000, TransferredN: 1, Transferred: 10_000},
			{IssuedN: 1, Issued: 2_000_000, RepaidN: 1, Repaid: 200_000, TransferredN: 1, Transferred: 20_000},
		} {
			got := rows[i]
			if !got.Day.Equal(day.AddDate(0, 0, i)) {
				t.Errorf("row %d is of %v", i, got.Day)
			}
			if got.Day = (time.Time{}); got != want {
				t.Errorf("the %s: %+v, want %+v", day.AddDate(0, 0, i).Format(time.DateOnly), got, want)
			}
		}
	})
}

// TestAClientIsFoundAcrossPartnersByTheirPINFL: the applications of one PINFL, of any partner,
// with their loans; another person's are not; applications stored before the index get it
// from the backfill.
func TestAClientIsFoundAcrossPartnersByTheirPINFL(t *testing.T) {
	t.Parallel()
	forEachDialect(t, func(t *testing.T, s *suite) {
		ctx := context.Background()
		other := s.newPartner(t, "other")
		mine, theirs := s.storedAt(t, s.partner, "31234567890123", t0), s.storedAt(t, other, "31234567890123", t0)
		s.storedAt(t, s.partner, "41234567890123", t0)
		l := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), ApplicationID: mine.ID(), PartnerID: s.partner.ID, Amount: 1_000_000, MonthPeriod: 12,
			Rate: must(domain.PercentFromHundredths(2850)), ScheduleType: domain.ScheduleAnnuity, AccountNumber: "20208000123456789012", IssuedAt: t0})
		if err := s.loans.Create(ctx, l); err != nil {
			t.Fatal(err)
		}
		index := hex.EncodeToString(s.db.Sealer.Blind("pinfl", "31234567890123")[0])
		check := func(when string) {
			t.Helper()
			c, err := s.back.Client(ctx, index, ports.Today{Date: t0}, 50)
			if err != nil || len(c.Applications) != 2 || len(c.Loans) != 1 || c.Loans[0].ID != l.ID() {
				t.Fatalf("%s: %+v %v", when, c, err)
			}
			for _, a := range c.Applications {
				if a.ID != mine.ID() && a.ID != theirs.ID() {
					t.Fatalf("%s: another person's application %s", when, a.ID)
				}
			}
		}
		check("as stored")
		if err := s.db.Gorm.Exec("UPDATE applications SET pinfl_index = ''").Error; err != nil {
			t.Fatal(err)
		}
		if n, err := s.db.IndexPINFLs(ctx, true); err != nil || n != 3 {
			t.Fatalf("the backfill indexed %d: %v", n, err)
		}
		check("after the backfill")
		if c, err := s.back.Client(ctx, hex.EncodeToString(make([]byte, 32)), ports.Today{Date: t0}, 50); err != nil || len(c.Applications) != 0 {
			t.Fatalf("nobody's index: %+v %v", c, err)
		}
	})
}
