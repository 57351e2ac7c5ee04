package domain_test

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// goldenLoan is 1 000 000 000 tiyin for 12 months at 28 % issued on 2026-01-31 (the golden
// schedule of schedule_test.go), with the default 0.05 % daily penalty.
func goldenLoan() *domain.Loan {
	return domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 1_000_000_000, MonthPeriod: 12, Rate: pct("28"),
		PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, ContractNumber: "1234567890",
		IssuedAt: time.Date(2026, 1, 31, 12, 0, 0, 0, domain.Tashkent)})
}

// at is 10:00 in Tashkent on the date.
func at(s string) time.Time { return date(s).Add(5 * time.Hour) }

// repay checks and pays amount on the loan at t, failing the test on a refusal.
func repay(t testing.TB, loan *domain.Loan, when time.Time, typ domain.PaymentType, amount int64) (domain.Payment, domain.Posting) {
	t.Helper()
	p, posting, err := tryRepay(loan, when, typ, amount)
	if err != nil {
		t.Fatalf("pay %d %s at %s: %v", amount, typ, when.Format(time.DateOnly), err)
	}
	return p, posting
}

func tryRepay(loan *domain.Loan, when time.Time, typ domain.PaymentType, amount int64) (domain.Payment, domain.Posting, error) {
	r, err := domain.NewRepayment(uuid.New(), loan, 0, when)
	if err != nil {
		return domain.Payment{}, domain.Posting{}, err
	}
	posting, err := r.Pay(loan, domain.Payment{Type: typ, Amount: amount, DebitID: "D", Network: domain.NetworkUzcard,
		TransactionID: uuid.New(), At: when})
	if err != nil {
		return domain.Payment{}, domain.Posting{}, err
	}
	return *r.Payment(), posting, nil
}

func position(t testing.TB, loan *domain.Loan, when time.Time) domain.Position {
	t.Helper()
	p, err := loan.PositionAt(when)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func schedule(t testing.TB, loan *domain.Loan) []domain.ScheduleItem {
	t.Helper()
	s, err := loan.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkRepaidSchedule asserts the invariants every schedule keeps through repayments: the
// original dates (items a prepayment laid out to nothing are gone), Σ principal = amount.
func checkRepaidSchedule(t testing.TB, loan *domain.Loan, original []domain.ScheduleItem) {
	t.Helper()
	s := schedule(t, loan)
	left := int64(loan.Amount())
	k := 0
	for i, it := range s {
		for k < len(original) && original[k].PaymentDate.Before(it.PaymentDate) {
			k++
		}
		if k == len(original) || !it.PaymentDate.Equal(original[k].PaymentDate) || it.PeriodDays != original[k].PeriodDays {
			t.Fatalf("item %d (%s, %d days) is not an original item", i, it.PaymentDate, it.PeriodDays)
		}
		left -= it.Principal
		if it.Principal < 0 || it.Interest < 0 || it.Service < 0 || it.Residue != left {
			t.Fatalf("item %d: %+v, residue should be %d", i, it, left)
		}
	}
	if left != 0 {
		t.Fatalf("Σ principal misses the amount by %d", left)
	}
}

func TestInstalmentsPaidOnTimeCloseTheLoanWithTheScheduleUnchanged(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	original := schedule(t, loan)
	for i, it := range original {
		due := it.PaymentDate.Add(5 * time.Hour)
		p, posting := repay(t, loan, due, domain.PaymentTerm, it.Total())
		if p.Principal != it.Principal || p.Interest != it.Interest+it.Service || p.Penalty != 0 {
			t.Fatalf("item %d applied as %+v, scheduled %+v", i, p, it)
		}
		if len(posting.Entries) != 3 || posting.Entries[0].Debit != it.Total() {
			t.Fatalf("item %d posting %+v", i, posting.Entries)
		}
		if pos := position(t, loan, due.Add(24*time.Hour)); pos.Fine() != 0 {
			t.Fatalf("after item %d something is overdue: %+v", i, pos)
		}
	}
	if !loan.Closed() || position(t, loan, at("2027-06-01")) != (domain.Position{}) {
		t.Fatalf("loan not closed: %+v", position(t, loan, at("2027-06-01")))
	}
	if got := schedule(t, loan); !equalItems(got, original) {
		t.Fatalf("schedule changed:\n%+v\n%+v", got, original)
	}
	if _, _, err := tryRepay(loan, at("2027-02-01"), domain.PaymentTerm, 1); !errors.Is(err, domain.ErrLoanNotIssued) {
		t.Fatalf("check on a closed loan: %v", err)
	}
}

func equalItems(a, b []domain.ScheduleItem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestEarlyRepaymentRecomputesToTheSameEndDate(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	original := schedule(t, loan)
	// On 15 February, 15 days into the first period, interest accrued is
	// 1e9 × 0.28 × 15/365 = 11 506 849.3 → 11 506 849; the scheduled principal of item 1 is
	// 74 923 255; the rest of the 100 000 000 prepays principal.
	p, posting := repay(t, loan, at("2026-02-15"), domain.PaymentEarly, 100_000_000)
	if p.Interest != 11_506_849 || p.Principal != 100_000_000-11_506_849 {
		t.Fatalf("applied %+v", p)
	}
	if len(posting.Entries) != 3 || posting.Entries[1].Credit != p.Principal || posting.Entries[2].Credit != p.Interest {
		t.Fatalf("posting %+v", posting.Entries)
	}
	checkRepaidSchedule(t, loan, original)
	s := schedule(t, loan)
	left := int64(1_000_000_000 - p.Principal)
	// Item 1 keeps the interest to the 15th and accrues the rest of its period (13 days) on
	// the principal left.
	if want := 11_506_849 + domain.Accrue(left, pct("28"), 13); s[0].Interest != want {
		t.Fatalf("item 1 interest %d, want %d", s[0].Interest, want)
	}
	for i := 1; i < len(s); i++ {
		if s[i].Total() >= original[i].Total() {
			t.Fatalf("item %d instalment %d not below %d", i+1, s[i].Total(), original[i].Total())
		}
	}
	if s[11].Principal == 0 || s[11].Residue != 0 {
		t.Fatalf("the loan must still end on the last date: %+v", s[11])
	}
	// Right after the payment the payoff fell by exactly the amount.
	if got := position(t, loan, at("2026-02-15")).Payoff(); got != 1_000_000_000+11_506_849-100_000_000 {
		t.Fatalf("payoff after %d", got)
	}
}

func TestTermPrepaymentKeepsTheInstalmentAndEndsEarlier(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	original := schedule(t, loan)
	instalment := original[0].Total()
	p, _ := repay(t, loan, at("2026-02-15"), domain.PaymentTerm, instalment+300_000_000)
	// TERM takes the whole first item (its full scheduled interest) and the rest is principal;
	// the period's 13 days left then accrue on less, and the interest paid ahead for them goes
	// to principal too (E): item 1's interest is what its days accrue, 15 on 1e9, 13 on the rest.
	e := p.Principal - original[0].Principal - 300_000_000
	if e <= 0 || p.Interest != original[0].Interest-e || p.Principal+p.Interest != instalment+300_000_000 {
		t.Fatalf("applied %+v", p)
	}
	checkRepaidSchedule(t, loan, original)
	s := schedule(t, loan)
	if want := domain.Accrue(15*1_000_000_000+13*(1_000_000_000-p.Principal), pct("28"), 1); s[0].Principal != p.Principal ||
		s[0].Interest != want || p.Interest != want {
		t.Fatalf("item 1 %+v, its interest should be %d", s[0], want)
	}
	last := 0
	for i := 1; i < len(s); i++ {
		if s[i].Total() > 0 {
			last = i
		}
	}
	if last >= 11 {
		t.Fatal("the loan does not end earlier")
	}
	for i := 1; i < last; i++ {
		if s[i].Total() != instalment {
			t.Fatalf("item %d instalment %d, want %d", i+1, s[i].Total(), instalment)
		}
	}
	if s[last].Total() > instalment {
		t.Fatalf("last item %d above the instalment", s[last].Total())
	}
	// Nothing is owed for the first period any more, whatever day it is before its end: the
	// interest paid for its days to come is credited against the principal.
	if pos := position(t, loan, at("2026-02-20")); pos.TermInterest != 0 || pos.NotDuePrincipal >= 1_000_000_000-p.Principal {
		t.Fatalf("position %+v", pos)
	}
}

func TestPayingThePayoffClosesTheLoanWhateverTheType(t *testing.T) {
	t.Parallel()
	for _, typ := range []domain.PaymentType{domain.PaymentTerm, domain.PaymentEarly} {
		loan := goldenLoan()
		original := schedule(t, loan)
		payoff := position(t, loan, at("2026-04-10")).Payoff() // items 1 and 2 overdue, penalty accrued
		if _, _, err := tryRepay(loan, at("2026-04-10"), typ, payoff+1); !errors.Is(err, domain.ErrRepaymentAmount) {
			t.Fatalf("%s above the payoff: %v", typ, err)
		}
		p, posting := repay(t, loan, at("2026-04-10"), typ, payoff)
		if !loan.Closed() || p.Principal != 1_000_000_000 || p.Penalty == 0 {
			t.Fatalf("%s: closed %v, applied %+v", typ, loan.Closed(), p)
		}
		if len(posting.Entries) != 4 {
			t.Fatalf("%s: posting %+v", typ, posting.Entries)
		}
		checkRepaidSchedule(t, loan, original)
		if pos := position(t, loan, at("2027-06-01")); pos != (domain.Position{}) {
			t.Fatalf("%s: a closed loan owes %+v", typ, pos)
		}
	}
}

func TestOverdueIsPaidFirstProportionallyThenPenaltyStops(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	original := schedule(t, loan)
	before := position(t, loan, at("2026-03-10"))
	op, oi := original[0].Principal, original[0].Interest
	if before.OverduePrincipal != op || before.OverdueInterest != oi {
		t.Fatalf("before %+v", before)
	}
	const amount = 50_000_000
	p, _ := repay(t, loan, at("2026-03-10"), domain.PaymentTerm, amount)
	share := new(big.Int).Mul(big.NewInt(amount), big.NewInt(op))
	share.Quo(share, big.NewInt(op+oi))
	if p.Principal != share.Int64() || p.Interest != amount-share.Int64() || p.Penalty != 0 {
		t.Fatalf("applied %+v, principal share should be %d", p, share)
	}
	after := position(t, loan, at("2026-03-10"))
	if after.Payoff() != before.Payoff()-amount || after.OverduePrincipal != op-p.Principal {
		t.Fatalf("after %+v", after)
	}
	// Paying the rest of the overdue item and its penalty leaves no fine; the penalty does not
	// grow afterwards.
	rest := after.OverduePrincipal + after.OverdueInterest + after.TermInterest + after.Penalty
	current := original[1]
	p2, _ := repay(t, loan, at("2026-03-10"), domain.PaymentTerm, rest-after.TermInterest+current.Interest+current.Principal)
	if p2.Penalty != after.Penalty {
		t.Fatalf("penalty paid %d, owed %d", p2.Penalty, after.Penalty)
	}
	if pos := position(t, loan, at("2026-03-25")); pos.Fine() != 0 {
		t.Fatalf("fine after paying everything due: %+v", pos)
	}
	checkRepaidSchedule(t, loan, original)
}

func TestRepaymentRequestRules(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	r, err := domain.NewRepayment(uuid.New(), loan, 42, at("2026-02-15").Add(13*time.Hour+50*time.Minute)) // 23:50
	if err != nil {
		t.Fatal(err)
	}
	checked := at("2026-02-15").Add(13*time.Hour + 50*time.Minute)
	if s, _ := r.StatusAt(checked.Add(9*time.Minute), 0); s != domain.RepaymentNew {
		t.Fatalf("at 23:59 %s", s)
	}
	if s, _ := r.StatusAt(checked.Add(10*time.Minute), 0); s != domain.RepaymentExpired {
		t.Fatalf("at midnight %s, want EXPIRED", s)
	}
	if s, _ := r.StatusAt(checked, 1); s != domain.RepaymentFailed {
		t.Fatalf("after another payment %s, want FAILED", s)
	}
	for _, amount := range []int64{0, -1, r.Quote().Payoff() + 1} {
		if err := r.Payable(loan, checked, amount); !errors.Is(err, domain.ErrRepaymentAmount) {
			t.Fatalf("amount %d: %v", amount, err)
		}
	}
	noon := at("2026-02-16")
	r2, _ := domain.NewRepayment(uuid.New(), loan, 0, noon)
	if s, _ := r2.StatusAt(noon.Add(domain.RepaymentTTL), 0); s != domain.RepaymentExpired {
		t.Fatalf("after 30 min %s", s)
	}
	if _, err := r2.Pay(loan, domain.Payment{Type: domain.PaymentTerm, Amount: 1, At: noon.Add(domain.RepaymentTTL)}); !errors.Is(err, domain.ErrRepaymentExpired) {
		t.Fatalf("pay after 30 min: %v", err)
	}
	if _, err := r2.Pay(loan, domain.Payment{Type: domain.PaymentTerm, Amount: 1, TransactionID: uuid.New(), At: noon}); err != nil {
		t.Fatal(err)
	}
	if _, err := r2.Pay(loan, domain.Payment{Type: domain.PaymentTerm, Amount: 1, TransactionID: uuid.New(), At: noon}); !errors.Is(err, domain.ErrRepaymentExpired) {
		t.Fatalf("second pay: %v", err)
	}
}

func TestVerifyDebit(t *testing.T) {
	t.Parallel()
	ok := domain.Debit{ID: "D1", Network: domain.NetworkHumo, Amount: 500, Succeeded: true}
	tests := []struct {
		name string
		d    domain.Debit
		ok   bool
	}{
		{"matches", ok, true},
		{"failed", domain.Debit{ID: "D1", Network: domain.NetworkHumo, Amount: 500}, false},
		{"other network", domain.Debit{ID: "D1", Network: domain.NetworkUzcard, Amount: 500, Succeeded: true}, false},
		{"other amount", domain.Debit{ID: "D1", Network: domain.NetworkHumo, Amount: 499, Succeeded: true}, false},
	}
	for _, tt := range tests {
		err := domain.VerifyDebit(tt.d, 500, domain.NetworkHumo)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, domain.ErrDebitRejected)) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
}

// TestRepaymentProperties pays random loans with random repayments and checks that nothing is
// lost: the schedule keeps its invariants, principal paid plus principal owed is the amount,
// every posting balances, and paying the payoff closes the loan.
func TestRepaymentProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for n := range 1500 {
		issued := time.Date(2026, time.Month(1+rng.IntN(12)), 1+rng.IntN(31), 9, 0, 0, 0, domain.Tashkent)
		typ := domain.ScheduleAnnuity
		if rng.IntN(3) == 0 {
			typ = domain.ScheduleDifferentiated
		}
		loan := domain.RestoreLoan(withRates(domain.LoanState{ID: uuid.New(), Amount: domain.Amount(1_000_000 + rng.Int64N(5_000_000_000)),
			MonthPeriod: 1 + rng.IntN(36), ScheduleType: typ, PenaltyDaily: pct("0.05"), IssuedAt: issued}, rng))
		original := schedule(t, loan)
		var paidPrincipal int64
		when := issued
		for k := 0; k < 1+rng.IntN(12) && !loan.Closed(); k++ {
			when = when.Add(time.Duration(rng.IntN(50*24)) * time.Hour)
			pos := position(t, loan, when)
			amount := 1 + rng.Int64N(pos.Payoff())
			if rng.IntN(6) == 0 {
				amount = pos.Payoff()
			}
			pt := domain.PaymentTerm
			if rng.IntN(2) == 0 {
				pt = domain.PaymentEarly
			}
			p, posting := repay(t, loan, when, pt, amount)
			paidPrincipal += p.Principal
			var credits, debits int64
			for _, e := range posting.Entries {
				credits += e.Credit
				debits += e.Debit
			}
			if credits != debits || p.Principal+p.Interest+p.Penalty != amount {
				t.Fatalf("loan %d: payment %+v does not add up", n, p)
			}
			// Principal owed and paid make the amount, less interest paid ahead that the
			// position credits against principal (at most a period's interest).
			after := position(t, loan, when)
			if owed := after.NotDuePrincipal + after.OverduePrincipal + paidPrincipal; !loan.Closed() &&
				(owed > int64(loan.Amount()) || owed < int64(loan.Amount())-maxInterest(original)) {
				t.Fatalf("loan %d: principal owed %d + paid %d, the amount %d", n, after.NotDuePrincipal+after.OverduePrincipal, paidPrincipal, loan.Amount())
			}
			// An EARLY payment lowers the payoff by its amount, to the rounding of the interest
			// paid ahead (E) and of the item's interest and service after it: 2 tiyin at most.
			if d := after.Payoff() - (pos.Payoff() - amount); pt == domain.PaymentEarly && (d > 2 || d < -2) {
				t.Fatalf("loan %d: EARLY payoff %d → %d after paying %d", n, pos.Payoff(), after.Payoff(), amount)
			}
			if after.Payoff() > pos.Payoff()-amount+pos.TermInterest+maxInterest(original) || after.Payoff() < 0 {
				t.Fatalf("loan %d: payoff %d → %d after paying %d", n, pos.Payoff(), after.Payoff(), amount)
			}
			if (amount == pos.Payoff()) != loan.Closed() {
				t.Fatalf("loan %d: paid %d of payoff %d, closed %v", n, amount, pos.Payoff(), loan.Closed())
			}
			checkRepaidSchedule(t, loan, original)
			// The book survives storage.
			loan = domain.RestoreLoan(loan.State())
		}
		if loan.Closed() && paidPrincipal != int64(loan.Amount()) {
			t.Fatalf("loan %d closed with principal %d of %d paid", n, paidPrincipal, loan.Amount())
		}
	}
}

func maxInterest(s []domain.ScheduleItem) int64 {
	var m int64
	for _, it := range s {
		m = max(m, it.Interest+it.Service)
	}
	return m
}

func withRates(s domain.LoanState, rng *rand.Rand) domain.LoanState {
	r, _ := domain.PercentFromHundredths(rng.Int64N(10000))
	svc, _ := domain.PercentFromHundredths(rng.Int64N(500))
	s.Rate, s.ServiceRate = r, svc
	return s
}

// repaidLoan is a 36-month loan with 50 repayments of both types, some late.
func repaidLoan(b *testing.B) *domain.Loan {
	loan := domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 5_000_000_000, MonthPeriod: 36, Rate: pct("28"),
		PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, IssuedAt: date("2026-01-31")})
	when := date("2026-02-10")
	for k := range 50 {
		typ := domain.PaymentTerm
		if k%3 == 0 {
			typ = domain.PaymentEarly
		}
		repay(b, loan, when, typ, 20_000_000)
		when = when.AddDate(0, 0, 16)
	}
	return loan
}

func BenchmarkPosition36MonthsWith50Repayments(b *testing.B) {
	state := repaidLoan(b).State()
	at := date("2028-06-15")
	b.ReportAllocs()
	for b.Loop() {
		loan := domain.RestoreLoan(state)
		if _, err := loan.PositionAt(at); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFold50Repayments(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = repaidLoan(b)
	}
}

func TestRepaymentSplitsInterestAndServiceIncome(t *testing.T) {
	t.Parallel()
	st := goldenLoan().State()
	st.ServiceRate = pct("12")
	loan := domain.RestoreLoan(st)
	// 15 days: interest 1e9 × 28 % × 15/365 = 11 506 849.3, service 1e9 × 12 % × 15/365 = 4 931 506.8.
	p, posting := repay(t, loan, at("2026-02-15"), domain.PaymentEarly, 100_000_000)
	credits := map[domain.AccountKind]int64{}
	for _, e := range posting.Entries {
		credits[e.Account.Kind] += e.Credit
	}
	if credits[domain.AccountInterestIncome] != 11_506_849 || credits[domain.AccountServiceIncome] != 4_931_507 ||
		credits[domain.AccountLoan] != p.Principal || p.Interest != 11_506_849+4_931_507 {
		t.Fatalf("credits %v, payment %+v", credits, p)
	}
}

// TestEarlyPaymentOnADueDateSettlesThatItemFirst: 300 000 000 for 12 months at 28 % issued
// 2026-01-15; on 2026-02-15 (item 1's due date) an EARLY payment of exactly the instalment
// settles item 1 as TERM would, so nothing is due that day and nothing is overdue the next;
// no item grows. A larger EARLY payment on a due date settles the item and lowers the later
// instalments to the same end date (DESIGN §8.4).
func TestEarlyPaymentOnADueDateSettlesThatItemFirst(t *testing.T) {
	t.Parallel()
	newLoan := func() *domain.Loan {
		return domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: 300_000_000, MonthPeriod: 12, Rate: pct("28"),
			PenaltyDaily: pct("0.05"), ScheduleType: domain.ScheduleAnnuity, ContractNumber: "1234567890",
			IssuedAt: time.Date(2026, 1, 15, 12, 0, 0, 0, domain.Tashkent)})
	}
	for _, extra := range []int64{0, 50_000_000} {
		loan := newLoan()
		original := schedule(t, loan)
		instalment := original[0].Total()
		repay(t, loan, at("2026-02-15"), domain.PaymentEarly, instalment+extra)
		s := schedule(t, loan)
		// Item 1 is settled with its scheduled interest; what was paid beyond it shows as
		// its principal, paid (the schedule's convention for a prepayment).
		if s[0].Principal != original[0].Principal+extra || s[0].Interest != original[0].Interest {
			t.Fatalf("extra %d: item 1 became %+v, was %+v", extra, s[0], original[0])
		}
		for i := 1; i < len(s); i++ {
			if s[i].Total() > original[i].Total() {
				t.Fatalf("extra %d: item %d grew from %d to %d", extra, i+1, original[i].Total(), s[i].Total())
			}
		}
		if extra > 0 && (s[1].Total() >= original[1].Total() || s[11].Principal == 0 || s[11].Residue != 0) {
			t.Fatalf("extra %d: later items %+v … %+v not lowered to the same end", extra, s[1], s[11])
		}
		next := position(t, loan, at("2026-02-16"))
		if next.OverduePrincipal != 0 || next.OverdueInterest != 0 || next.Penalty != 0 {
			t.Fatalf("extra %d: the next day %+v is overdue", extra, next)
		}
	}
}
