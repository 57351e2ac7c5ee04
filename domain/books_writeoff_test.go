package domain_test

import (
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// kindLedger sums entries by account kind, debits minus credits.
type kindLedger map[domain.AccountKind]int64

func (g kindLedger) post(es []domain.Entry) {
	for _, e := range es {
		g[e.Account.Kind] += e.Debit - e.Credit
	}
}

// A write-off follows the books' rules whether or not a close has run for the loan: a loan
// written off before its first close (issued since the last close, or before the books ever
// closed) opens its books at the write-off, and stands where the same loan would stand had its
// books been closed every day from its issue: the same balances, kind by kind, and the same
// books, except that no close classified it, so the principal goes to WRITE_OFF_EXPENSE with
// no provision to use first. Its closes after that post nothing, and a recovery posts the same.
func TestAWriteOffBeforeTheFirstCloseKeepsTheBooks(t *testing.T) {
	t.Parallel()
	type pay struct {
		typ    domain.PaymentType
		amount int64 // 0: the first instalment in full
	}
	cases := []struct {
		name     string
		pays     map[string]pay
		writeOff string
	}{
		{name: "written off on its issue day", writeOff: "2026-01-31"},
		{name: "issued days before, no close run since", writeOff: "2026-02-10"},
		{name: "overdue, the books never closed", writeOff: "2026-04-15"},
		{name: "its first instalment paid ahead on the cash basis", writeOff: "2026-02-20",
			pays: map[string]pay{"2026-02-10": {typ: domain.PaymentTerm}}},
		{name: "paid in part, overdue, the same day as a payment", writeOff: "2026-04-15",
			pays: map[string]pay{"2026-03-05": {typ: domain.PaymentTerm, amount: 30_000_000},
				"2026-04-15": {typ: domain.PaymentEarly, amount: 5_000_000}}},
	}
	rules := domain.DefaultBooksRules()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bookless, kept := goldenLoan(), goldenLoan()
			issued := domain.BusinessDate(bookless.IssuedAt())
			first := schedule(t, bookless)[0].Total()
			off := date(tc.writeOff)
			mine, theirs := kindLedger{}, kindLedger{}
			for _, s := range []struct {
				loan *domain.Loan
				g    kindLedger
			}{{bookless, mine}, {kept, theirs}} {
				p, err := s.loan.IssuancePosting(uuid.New())
				if err != nil {
					t.Fatal(err)
				}
				s.g.post(p.Entries)
			}
			for d := issued; !d.After(off); d = d.AddDate(0, 0, 1) {
				if p, ok := tc.pays[d.Format(domain.DateLayout)]; ok {
					amount := p.amount
					if amount == 0 {
						amount = first
					}
					_, cash := repay(t, bookless, noon(d.Format(domain.DateLayout)), p.typ, amount)
					mine.post(cash.Entries)
					_, accrual := repay(t, kept, noon(d.Format(domain.DateLayout)), p.typ, amount)
					theirs.post(accrual.Entries)
				}
				if d.Equal(off) {
					break
				}
				// The other loan's books close every day from its issue.
				ps, err := kept.CloseBooks(issued, d, rules)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range ps {
					theirs.post(p.Entries)
				}
			}
			if _, open := bookless.Books(); open {
				t.Fatal("the loan has books before the write-off")
			}
			principal := mine[domain.AccountLoan] // all of it: no close moved any to OVERDUE_PRINCIPAL
			p, err := bookless.WriteOff(uuid.New(), noon(tc.writeOff))
			if err != nil || p == nil || p.Kind != domain.PostingWriteOff {
				t.Fatalf("the write-off: %+v (%v)", p, err)
			}
			mine.post(p.Entries)
			q, err := kept.WriteOff(uuid.New(), noon(tc.writeOff))
			if err != nil || q == nil {
				t.Fatalf("the write-off of the loan that kept its books: %v", err)
			}
			theirs.post(q.Entries)

			// The write-off posts on the accrual basis: the principal to WRITE_OFF_EXPENSE (no
			// provision was ever made) and the written-off memo; the cash basis's WRITTEN_OFF never.
			if mine[domain.AccountWrittenOff] != 0 || mine[domain.AccountWriteOffExpense] != principal || mine[domain.AccountLoan] != 0 ||
				mine[domain.AccountMemoWrittenOff] != principal || mine[domain.AccountMemoWrittenOffContra] != -principal ||
				mine[domain.AccountProvision] != 0 || mine[domain.AccountProvisionExpense] != 0 || principal == 0 {
				t.Fatalf("after the write-off of %d: %v", principal, mine)
			}
			st, open := bookless.Books()
			if !open || !st.Day.Equal(off.AddDate(0, 0, -1)) || !st.NonAccrual || st.MemoWrittenOff != principal || st.Provision != 0 ||
				st.Class != "" || st.DaysOverdue != 0 {
				t.Fatalf("the books after the write-off (open %t): %+v", open, st)
			}
			// Kind by kind as if its books had been kept from its issue; the expense is one.
			expense := theirs[domain.AccountProvisionExpense] + theirs[domain.AccountWriteOffExpense]
			if mine[domain.AccountWriteOffExpense] != expense {
				t.Fatalf("write-off expense %d, the loan that kept its books %d in all", mine[domain.AccountWriteOffExpense], expense)
			}
			same := func(when string) {
				t.Helper()
				for _, k := range domain.AccountKinds() {
					if k == domain.AccountProvisionExpense || k == domain.AccountWriteOffExpense {
						continue
					}
					if mine[k] != theirs[k] {
						t.Fatalf("%s: %s is %d, %d had the loan kept its books from its issue", when, k, mine[k], theirs[k])
					}
				}
			}
			same("after the write-off")
			kst, _ := kept.Books()
			if !reflect.DeepEqual(st, kst) {
				t.Fatalf("the books after the write-off:\n%+v\nhad the loan kept them from its issue:\n%+v", st, kst)
			}
			// Its closes then post nothing, and end; a recovery is booked alike.
			if ps, err := bookless.CloseBooks(issued, off.AddDate(0, 0, 2), rules); err != nil || len(ps) != 0 || bookless.BooksOpen() {
				t.Fatalf("the closes after the write-off: %d postings (%v), books open %t", len(ps), err, bookless.BooksOpen())
			}
			if _, err := kept.CloseBooks(issued, off.AddDate(0, 0, 2), rules); err != nil {
				t.Fatal(err)
			}
			later := noon(off.AddDate(0, 0, 3).Format(domain.DateLayout))
			_, r := repay(t, bookless, later, domain.PaymentTerm, 40_000_000)
			mine.post(r.Entries)
			_, r = repay(t, kept, later, domain.PaymentTerm, 40_000_000)
			theirs.post(r.Entries)
			if mine[domain.AccountRecoveryIncome] >= 0 {
				t.Fatalf("a recovery: %+v", r.Entries)
			}
			same("after a recovery")
		})
	}
}
