package domain_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// The cases the lifecycle comparison with the oracle found (docs/accounting.md, Decisions): what a payment or
// a waiver settles first, interest and service as one charge, and the write-off's day.

func cashCredit(k domain.AccountKind, amount int64) domain.Entry {
	return domain.Entry{Account: domain.BankAccount(k), Credit: amount}
}

// itemBalances are an item's interest and service in the books, for the tables below.
type itemBalances struct{ memoI, memoS, recI, recS, adv int64 }

// booksOf is a books state of the items, the penalty's memo and receivable and the loan's
// accounts in advance, its loan-wide fields the items' sums.
func booksOf(items []itemBalances, memoP, recP, advI, advS int64) domain.BooksState {
	s := domain.BooksState{MemoPenalty: memoP, PenaltyReceivable: recP, InterestAdvance: advI, ServiceAdvance: advS}
	for _, b := range items {
		s.Items = append(s.Items, domain.ItemBooks{Memo: [2]int64{b.memoI, b.memoS}, Receivable: [2]int64{b.recI, b.recS}, Advance: b.adv})
		s.MemoInterest += b.memoI
		s.MemoService += b.memoS
		s.InterestReceivable += b.recI
		s.ServiceReceivable += b.recS
	}
	return s
}

func itemsOf(s domain.BooksState) []itemBalances {
	var out []itemBalances
	for _, it := range s.Items {
		out = append(out, itemBalances{it.Memo[0], it.Memo[1], it.Receivable[0], it.Receivable[1], it.Advance})
	}
	return out
}

// TestPaymentsAndWaiversSettleEachItemsOwnChargesOldestFirst: service is allocated together
// with the interest of its period (docs/accounting.md, Decisions): what a payment or a waiver
// moves on an item settles that item's charges, its memo before its receivables, interest's
// before service's, and never another item's; what is left goes to the advance (a payment) or
// waits for the item's accrual (a waiver).
func TestPaymentsAndWaiversSettleEachItemsOwnChargesOldestFirst(t *testing.T) {
	t.Parallel()
	id := uuid.New()
	type loanBalances struct{ memoP, recP, advI, advS int64 }
	cases := []struct {
		name   string
		items  []itemBalances
		loan   loanBalances
		pay    bool    // a payment (else a waiver)
		cash   []int64 // a payment's interest, service and penalty as the cash basis splits them
		moved  []int64 // what the payment or waiver moved each item's charges paid by
		waiveP int64   // a waiver's penalty
		want   []itemBalances
		after  loanBalances
		text   string // the entries, as entryText lists them
	}{
		// Seed 1, loan 24 of the comparison: an EARLY payment's overdue interest paid part of the
		// first item's charges; it settles that item's interest, then its service, and leaves the
		// current item's interest receivable as it was (pooled, the loan's interest receivable
		// would have been settled first, the current item's with it).
		{name: "two items with receivables, one paid in part", pay: true,
			items: []itemBalances{{recI: 40, recS: 60}, {recI: 5, recS: 30}}, cash: []int64{20, 30, 0}, moved: []int64{50, 0},
			want: []itemBalances{{recS: 50}, {recI: 5, recS: 30}},
			text: "Cr INTEREST_RECEIVABLE 40; Cr SERVICE_RECEIVABLE 10"},
		{name: "two items with receivables, the first paid, the second in part", pay: true,
			items: []itemBalances{{recI: 40, recS: 60}, {recI: 5, recS: 30}}, cash: []int64{40, 80, 0}, moved: []int64{100, 20},
			want: []itemBalances{{}, {recS: 15}},
			text: "Cr INTEREST_RECEIVABLE 45; Cr SERVICE_RECEIVABLE 75"},
		// A cured loan: the first item's memo (from its non-accrual) is not the second item's to
		// settle; the second item's own receivables are.
		{name: "an item's payment leaves another item's memo", pay: true,
			items: []itemBalances{{memoI: 10, memoS: 10}, {recI: 5, recS: 5}}, cash: []int64{3, 3, 0}, moved: []int64{0, 6},
			want: []itemBalances{{memoI: 10, memoS: 10}, {recS: 4}},
			text: "Cr INTEREST_RECEIVABLE 5; Cr SERVICE_RECEIVABLE 1"},
		// The item's memo before its receivables, interest's before service's (seed 1, loan 189).
		{name: "an item's memo before its receivables", pay: true,
			items: []itemBalances{{memoI: 10, memoS: 5, recI: 3}}, cash: []int64{16, 0, 0}, moved: []int64{16},
			want: []itemBalances{{recI: 2}},
			text: "Dr MEMO_NONACCRUED_CONTRA 10; Dr MEMO_NONACCRUED_CONTRA 5; Cr INTEREST_INCOME 10; Cr INTEREST_RECEIVABLE 1; " +
				"Cr MEMO_NONACCRUED_INTEREST 10; Cr MEMO_NONACCRUED_SERVICE 5; Cr SERVICE_INCOME 5"},
		// What an item pays beyond its accrual is its advance, even while another item owes.
		{name: "paid ahead on one item while another owes", pay: true,
			items: []itemBalances{{recI: 40, recS: 60}, {recI: 4, recS: 2}}, cash: []int64{3, 5, 0}, moved: []int64{0, 8},
			want: []itemBalances{{recI: 40, recS: 60}, {adv: 2}}, after: loanBalances{advS: 2},
			text: "Cr INTEREST_RECEIVABLE 4; Cr SERVICE_IN_ADVANCE 2; Cr SERVICE_RECEIVABLE 2"},
		// E: the interest an item gives back comes out of that item's advance.
		{name: "given back out of the item's advance", pay: true,
			items: []itemBalances{{recI: 7}, {adv: 20}}, loan: loanBalances{advI: 12, advS: 8}, cash: []int64{-8, -7, 0}, moved: []int64{0, -15},
			want: []itemBalances{{recI: 7}, {adv: 5}}, after: loanBalances{advS: 5},
			text: "Dr INTEREST_IN_ADVANCE 12; Dr SERVICE_IN_ADVANCE 3"},
		{name: "penalty: the memo before the receivable", pay: true,
			items: nil, loan: loanBalances{memoP: 100, recP: 20}, cash: []int64{0, 0, 110},
			after: loanBalances{recP: 10},
			text:  "Dr MEMO_NONACCRUED_CONTRA 100; Cr MEMO_NONACCRUED_PENALTY 100; Cr PENALTY_INCOME 100; Cr PENALTY_RECEIVABLE 10"},
		{name: "a waiver settles the item's own charges",
			items: []itemBalances{{recI: 10, recS: 10}, {recI: 4, recS: 4}}, moved: []int64{12, 0},
			want: []itemBalances{{recS: 8}, {recI: 4, recS: 4}},
			text: "Dr INTEREST_INCOME 10; Dr SERVICE_INCOME 2; Cr INTEREST_RECEIVABLE 10; Cr SERVICE_RECEIVABLE 2"},
		{name: "a waiver: the item's memo before its receivables",
			items: []itemBalances{{memoI: 10, recI: 5, recS: 1}}, moved: []int64{12},
			want: []itemBalances{{recI: 3, recS: 1}},
			text: "Dr INTEREST_INCOME 2; Dr MEMO_NONACCRUED_CONTRA 10; Cr INTEREST_RECEIVABLE 2; Cr MEMO_NONACCRUED_INTEREST 10"},
		{name: "a penalty waiver: the memo before the receivable",
			loan: loanBalances{memoP: 7, recP: 9}, waiveP: 8,
			after: loanBalances{recP: 8},
			text:  "Dr MEMO_NONACCRUED_CONTRA 7; Dr PENALTY_INCOME 1; Cr MEMO_NONACCRUED_PENALTY 7; Cr PENALTY_RECEIVABLE 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := booksOf(c.items, c.loan.memoP, c.loan.recP, c.loan.advI, c.loan.advS)
			var es []domain.Entry
			if c.pay {
				var cash []domain.Entry
				for k, kind := range []domain.AccountKind{domain.AccountInterestIncome, domain.AccountServiceIncome, domain.AccountPenaltyIncome} {
					switch x := c.cash[k]; {
					case x > 0:
						cash = append(cash, cashCredit(kind, x))
					case x < 0:
						cash = append(cash, domain.Entry{Account: domain.BankAccount(kind), Debit: -x})
					}
				}
				s, es = s.Repayment(id, cash, c.moved)
			} else {
				s, es = s.Waive(id, c.moved, c.waiveP)
			}
			want := booksOf(c.want, c.after.memoP, c.after.recP, c.after.advI, c.after.advS)
			if got := itemsOf(s); !reflect.DeepEqual(got, itemsOf(want)) {
				t.Errorf("items after: %+v, want %+v", got, itemsOf(want))
			}
			if s.InterestReceivable != want.InterestReceivable || s.ServiceReceivable != want.ServiceReceivable ||
				s.MemoInterest != want.MemoInterest || s.MemoService != want.MemoService || s.MemoPenalty != want.MemoPenalty ||
				s.PenaltyReceivable != want.PenaltyReceivable || s.InterestAdvance != want.InterestAdvance ||
				s.ServiceAdvance != want.ServiceAdvance {
				t.Errorf("after: %+v, want %+v", s, want)
			}
			if got := entryText(es); got != c.text {
				t.Errorf("entries\n%s, want\n%s", got, c.text)
			}
		})
	}
}

func TestAWriteOffHasNoClassAndPutsItsDaysPenaltyInTheMemo(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                 string
		taken, rec, penalty  int64
		wantMemo, wantIncome int64 // the memo after, and the penalty income reversed
	}{
		// The write-off's day: its penalty is owed from the day's start, and no close will accrue
		// it on a written-off loan (seed 1, loan 26 of the comparison).
		{name: "the day's penalty not yet accrued", taken: 100, rec: 30, penalty: 130, wantMemo: 60, wantIncome: 30},
		{name: "nothing more accrued", taken: 100, rec: 30, penalty: 100, wantMemo: 30, wantIncome: 30},
		{name: "paid ahead today", taken: 140, rec: 0, penalty: 130, wantMemo: 0, wantIncome: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := domain.BooksState{TakenPenalty: c.taken, PenaltyReceivable: c.rec, DaysOverdue: 40, Class: "UNSATISFACTORY", Provision: 5}
			s, es := s.WriteOff(uuid.New(), 0, c.penalty)
			var reversed int64
			for _, e := range es {
				if e.Account.Kind == domain.AccountPenaltyIncome {
					reversed += e.Debit
				}
			}
			if s.MemoPenalty != c.wantMemo || reversed != c.wantIncome || s.PenaltyReceivable != 0 {
				t.Errorf("memo %d, income reversed %d, receivable %d; want %d, %d, 0", s.MemoPenalty, reversed, s.PenaltyReceivable,
					c.wantMemo, c.wantIncome)
			}
			if s.Class != "" || s.DaysOverdue != 0 || !s.NonAccrual {
				t.Errorf("a written-off loan: class %q, %d days overdue, non-accrual %t", s.Class, s.DaysOverdue, s.NonAccrual)
			}
		})
	}
}

// A loan that owes only penalty, written off: no principal to write off, but its penalty
// receivable leaves income for the memo and it is out of the portfolio (seed 1, loan 1424 of
// the comparison, where the domain posted nothing and kept classifying it).
func TestAWriteOffOfOnlyPenaltyMovesItToTheMemo(t *testing.T) {
	t.Parallel()
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_000_000, MonthPeriod: 1, Rate: pct("28"),
		PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, ContractNumber: "1",
		IssuedAt: time.Date(2026, 1, 10, 12, 0, 0, 0, domain.Tashkent)})
	rules := domain.DefaultBooksRules()
	if _, err := loan.CloseBooks(date("2026-01-10"), date("2026-02-19"), rules); err != nil {
		t.Fatal(err)
	}
	pos, err := loan.PositionAt(at("2026-02-20"))
	if err != nil {
		t.Fatal(err)
	}
	repay(t, loan, at("2026-02-20"), domain.PaymentTerm, pos.OverduePrincipal+pos.OverdueInterest)
	if _, err := loan.CloseBooks(date("2026-01-10"), date("2026-02-20"), rules); err != nil {
		t.Fatal(err)
	}
	before, _ := loan.Books()
	if before.PenaltyReceivable <= 0 || before.OverduePrincipal != 0 || loan.Closed() {
		t.Fatalf("the loan should owe only penalty: %+v", before)
	}
	p, err := loan.WriteOff(uuid.New(), at("2026-02-21"))
	if err != nil || p == nil {
		t.Fatalf("write-off: %v, %v", p, err)
	}
	var reversed int64
	for _, e := range p.Entries {
		if e.Account.Kind == domain.AccountPenaltyIncome {
			reversed += e.Debit
		}
	}
	after, _ := loan.Books()
	if reversed != before.PenaltyReceivable || after.PenaltyReceivable != 0 || after.MemoPenalty < before.PenaltyReceivable ||
		after.Class != "" || !after.NonAccrual {
		t.Errorf("after the write-off: %+v, income reversed %d (receivable was %d)", after, reversed, before.PenaltyReceivable)
	}
}

// A waiver settles the item it forgives, and what of it had not accrued yet is the item's: a
// waiver of the first item's charges while the closes lag behind (through 02-05) reverses what
// they accrued of it, and the closes that catch up accrue none of the rest, interest's and
// service's alike; the second item's, accrued since 02-10, stays receivable and income, each
// charge its own. (With the loan's interest and service pooled, the rest was taken in as the
// waiver's proportional interest, and the catch-up moved the first item's service days from
// interest income to service income.)
func TestAWaiverAheadOfTheCloseIsTheItemsOwn(t *testing.T) {
	t.Parallel()
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 10_000_000, MonthPeriod: 3, Rate: pct("28"),
		ServiceRate: pct("12"), PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, ContractNumber: "1",
		IssuedAt: noon("2026-01-10")})
	rules := domain.DefaultBooksRules()
	ledger := map[domain.AccountKind]int64{}
	post := func(ps []domain.Posting) {
		for _, p := range ps {
			for _, e := range p.Entries {
				ledger[e.Account.Kind] += e.Debit - e.Credit
			}
		}
	}
	closed, err := loan.CloseBooks(date("2026-01-10"), date("2026-02-05"), rules)
	if err != nil {
		t.Fatal(err)
	}
	post(closed)
	first := schedule(t, loan)[0]
	out, err := (&domain.Proposal{Kind: domain.ActionWaiveInterest, ObjectID: loan.ID()}).ApplyTo(loan, uuid.New(), uuid.New(), noon("2026-02-12"))
	if err != nil || out.Amount != first.Interest+first.Service {
		t.Fatalf("waived %d (%v), want the first item's %d", out.Amount, err, first.Interest+first.Service)
	}
	post(out.Postings)
	if closed, err = loan.CloseBooks(date("2026-01-10"), date("2026-02-12"), rules); err != nil {
		t.Fatal(err)
	}
	post(closed)
	st, _ := loan.Books()
	interest, service, _, err := loan.AccruedThrough(date("2026-02-12"))
	if err != nil {
		t.Fatal(err)
	}
	// The second item's three days (02-10 to 02-12), each charge its own.
	second := [2]int64{interest - first.Interest, service - first.Service}
	if second[0] <= 0 || second[1] <= 0 {
		t.Fatalf("the second item accrued %v", second)
	}
	want := []domain.ItemBooks{{Taken: [2]int64{first.Interest, first.Service}}, {Taken: second, Receivable: second}}
	if !reflect.DeepEqual(st.Items[:2], want) || st.InterestAdvance+st.ServiceAdvance != 0 {
		t.Fatalf("after the closes: items %+v, advance %d + %d; want items %+v", st.Items[:2], st.InterestAdvance, st.ServiceAdvance, want)
	}
	if got := [4]int64{-ledger[domain.AccountInterestIncome], -ledger[domain.AccountServiceIncome],
		ledger[domain.AccountInterestReceivable], ledger[domain.AccountServiceReceivable]}; got != [4]int64{second[0], second[1], second[0], second[1]} {
		t.Fatalf("interest and service income %d, %d, receivable %d, %d; want the second item's %v", got[0], got[1], got[2], got[3], second)
	}
}

// What an item paid ahead is that item's: a payment of the first item's charges while the
// closes lag behind (through 02-05) settles what they accrued of it and puts the rest, its days
// after 02-05, in the item's advance; the closes that catch up release it against those days,
// and the second item's, accrued since 02-10, stays receivable, each charge its own.
func TestAnItemsAdvanceSettlesItsOwnAccrual(t *testing.T) {
	t.Parallel()
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 10_000_000, MonthPeriod: 3, Rate: pct("28"),
		ServiceRate: pct("12"), PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, ContractNumber: "1",
		IssuedAt: noon("2026-01-10")})
	rules := domain.DefaultBooksRules()
	if _, err := loan.CloseBooks(date("2026-01-10"), date("2026-02-05"), rules); err != nil {
		t.Fatal(err)
	}
	pos := position(t, loan, noon("2026-02-12"))
	repay(t, loan, noon("2026-02-12"), domain.PaymentEarly, pos.OverduePrincipal+pos.OverdueInterest)
	paid, _ := loan.Books()
	if it := paid.Items[0]; it.Receivable != [2]int64{} || it.Advance <= 0 || paid.Items[1] != (domain.ItemBooks{}) {
		t.Fatalf("after the payment: %+v", paid.Items)
	}
	if _, err := loan.CloseBooks(date("2026-01-10"), date("2026-02-12"), rules); err != nil {
		t.Fatal(err)
	}
	st, _ := loan.Books()
	first := schedule(t, loan)[0]
	interest, service, _, err := loan.AccruedThrough(date("2026-02-12"))
	if err != nil {
		t.Fatal(err)
	}
	second := [2]int64{interest - first.Interest, service - first.Service}
	if second[0] <= 0 || second[1] <= 0 {
		t.Fatalf("the second item accrued %v", second)
	}
	want := []domain.ItemBooks{{Taken: [2]int64{first.Interest, first.Service}}, {Taken: second, Receivable: second}}
	if !reflect.DeepEqual(st.Items[:2], want) || st.InterestReceivable != second[0] || st.ServiceReceivable != second[1] ||
		st.InterestAdvance+st.ServiceAdvance != 0 {
		t.Fatalf("after the closes: %+v, items %+v; want items %+v", st, st.Items[:2], want)
	}
}

// Books stored before they kept interest and service per item are laid on the items at their
// next use: a loan that owes its first item's charges and accrues its second's carries on
// exactly as one whose books kept them.
func TestBooksStoredWithoutItemsAreLaidOnThem(t *testing.T) {
	t.Parallel()
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 10_000_000, MonthPeriod: 3, Rate: pct("28"),
		ServiceRate: pct("12"), PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, ContractNumber: "1",
		IssuedAt: noon("2026-01-10")})
	rules := domain.DefaultBooksRules()
	if _, err := loan.CloseBooks(date("2026-01-10"), date("2026-02-20"), rules); err != nil {
		t.Fatal(err)
	}
	kept := loan.State()
	old := loan.State()
	stored := *old.Books
	stored.Items = nil
	old.Books = &stored
	loans := []*domain.Loan{domain.RestoreLoan(kept), domain.RestoreLoan(old)}
	var entries [2]string
	for k, l := range loans {
		_, cash := repay(t, l, noon("2026-02-21"), domain.PaymentEarly, 1_000_000)
		closed, err := l.CloseBooks(date("2026-01-10"), date("2026-03-05"), rules)
		if err != nil {
			t.Fatal(err)
		}
		entries[k] = entryText(cash.Entries)
		for _, p := range closed {
			entries[k] += " | " + entryText(p.Entries)
		}
	}
	a, _ := loans[0].Books()
	b, _ := loans[1].Books()
	if !reflect.DeepEqual(a, b) || entries[0] != entries[1] {
		t.Fatalf("kept per item: %+v\n%s\nlaid on the items: %+v\n%s", a, entries[0], b, entries[1])
	}
	if a.InterestReceivable == 0 || a.ServiceReceivable == 0 {
		t.Fatalf("nothing receivable: %+v", a)
	}
}
