package domain_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// booksOp is something that happens to a loan during a business day, before its close.
type booksOp struct {
	pay           int64 // a repayment of this amount (-1: the payoff)
	early         bool
	waivePenalty  int64 // -1: all of it
	waiveInterest int64 // -1: all of it
	writeOff      bool
}

// booksRun walks a loan day by day through its closes, keeping a ledger of every entry.
type booksRun struct {
	t      *testing.T
	loan   *domain.Loan
	rules  domain.BooksRules
	state  domain.BooksState
	ledger map[domain.Account]int64 // debit positive
	// days is each close's entries by day.
	days map[string][]domain.Entry
	// paid is each charge's cash received net of interest given back (E), waived what operators
	// forgave: over a loan's life, income = paid − waived.
	paidInterest, paidService, paidPenalty int64
	waivedInterest, waivedPenalty          int64
}

func newBooksRun(t *testing.T, loan *domain.Loan, rules domain.BooksRules) *booksRun {
	t.Helper()
	st, err := loan.OpeningBooks()
	if err != nil {
		t.Fatal(err)
	}
	r := &booksRun{t: t, loan: loan, rules: rules, state: st, ledger: map[domain.Account]int64{}, days: map[string][]domain.Entry{}}
	issue, err := loan.IssuancePosting(uuid.New())
	if err != nil {
		t.Fatal(err)
	}
	r.post(issue.Entries)
	return r
}

// post checks the entries balance, on balance and in each memo pair, and books them.
func (r *booksRun) post(es []domain.Entry) {
	r.t.Helper()
	var on, nonAccrued, writtenOff int64
	for _, e := range es {
		if e.Debit < 0 || e.Credit < 0 || (e.Debit == 0) == (e.Credit == 0) {
			r.t.Fatalf("entry %+v is not a positive debit or credit", e)
		}
		v := e.Debit - e.Credit
		r.ledger[e.Account] += v
		switch k := e.Account.Kind; {
		case k == domain.AccountMemoWrittenOff || k == domain.AccountMemoWrittenOffContra:
			writtenOff += v
		case k.OffBalance():
			nonAccrued += v
		default:
			on += v
		}
	}
	if on != 0 || nonAccrued != 0 || writtenOff != 0 {
		r.t.Fatalf("entries do not balance: on balance %d, non-accrued memo %d, written-off memo %d: %+v", on, nonAccrued, writtenOff, es)
	}
}

// balance is an account's balance in its normal sign.
func (r *booksRun) balance(k domain.AccountKind) int64 {
	a := domain.LoanAccount(k, r.loan.ID())
	switch k {
	case domain.AccountInterestIncome, domain.AccountServiceIncome, domain.AccountPenaltyIncome, domain.AccountRecoveryIncome,
		domain.AccountProvisionExpense, domain.AccountWriteOffExpense:
		a = domain.BankAccount(k)
	}
	if k.Normal() == domain.SideCredit {
		return -r.ledger[a]
	}
	return r.ledger[a]
}

// noon is 12:00 in Tashkent on the date.
func noon(s string) time.Time { return date(s).Add(7 * time.Hour) }

// run closes every day from..to (inclusive), doing each day's operations first.
func (r *booksRun) run(from, to string, ops map[string]booksOp) {
	r.t.Helper()
	for d := date(from); !d.After(date(to)); d = d.AddDate(0, 0, 1) {
		if op, ok := ops[d.Format(domain.DateLayout)]; ok {
			r.do(d, op)
		}
		r.close(d)
	}
}

func (r *booksRun) do(d time.Time, op booksOp) {
	r.t.Helper()
	when := noon(d.Format(domain.DateLayout))
	if op.pay != 0 {
		amount, typ := op.pay, domain.PaymentTerm
		if op.early {
			typ = domain.PaymentEarly
		}
		if amount < 0 {
			amount = position(r.t, r.loan, when).Payoff()
		}
		r.pay(when, typ, amount)
	}
	r.doActions(when, op)
}

// pay repays amount at when and books it on the accrual basis; it returns the entries.
func (r *booksRun) pay(when time.Time, typ domain.PaymentType, amount int64) []domain.Entry {
	r.t.Helper()
	{
		before := chargesPaid(r.t, r.loan)
		_, cash := repay(r.t, r.loan, when, typ, amount)
		for _, e := range cash.Entries {
			switch e.Account.Kind {
			case domain.AccountInterestIncome:
				r.paidInterest += e.Credit - e.Debit
			case domain.AccountServiceIncome:
				r.paidService += e.Credit - e.Debit
			case domain.AccountPenaltyIncome:
				r.paidPenalty += e.Credit - e.Debit
			}
		}
		var es []domain.Entry
		r.state, es = r.state.Repayment(r.loan.ID(), cash.Entries, paidSince(r.t, r.loan, before))
		r.post(es)
		return es
	}
}

// chargesPaid is what each item of the loan's book has paid of its charges.
func chargesPaid(t testing.TB, loan *domain.Loan) []int64 {
	t.Helper()
	paid, err := loan.ChargesPaid()
	if err != nil {
		t.Fatal(err)
	}
	return paid
}

// paidSince is what each item's charges paid moved by since before: what BooksState.Repayment
// and Waive take.
func paidSince(t testing.TB, loan *domain.Loan, before []int64) []int64 {
	t.Helper()
	out := chargesPaid(t, loan)
	for k := range before {
		out[k] -= before[k]
	}
	return out
}

func (r *booksRun) doActions(when time.Time, op booksOp) {
	r.t.Helper()
	if op.waivePenalty != 0 || op.waiveInterest != 0 {
		var wp, wi int64
		var err error
		before := chargesPaid(r.t, r.loan)
		if op.waivePenalty != 0 {
			if wp, err = r.loan.WaivePenalty(when, max(0, op.waivePenalty)); err != nil {
				r.t.Fatal(err)
			}
		}
		if op.waiveInterest != 0 {
			if wi, err = r.loan.WaiveInterest(when, max(0, op.waiveInterest)); err != nil {
				r.t.Fatal(err)
			}
		}
		r.waivedPenalty += wp
		r.waivedInterest += wi
		var es []domain.Entry
		r.state, es = r.state.Waive(r.loan.ID(), paidSince(r.t, r.loan, before), wp)
		r.post(es)
	}
	if op.writeOff {
		before := position(r.t, r.loan, when)
		principal := before.NotDuePrincipal + before.OverduePrincipal
		if _, err := r.loan.WriteOff(uuid.New(), when); err != nil {
			r.t.Fatal(err)
		}
		// The run keeps the loan's books itself (state): the loan, which opened its own at the
		// write-off, goes on without them, so that its payments come as the cash basis's.
		st := r.loan.State()
		st.Books = nil
		r.loan = domain.RestoreLoan(st)
		_, _, penalty, err := r.loan.AccruedThrough(domain.BusinessDate(when))
		if err != nil {
			r.t.Fatal(err)
		}
		var es []domain.Entry
		r.state, es = r.state.WriteOff(r.loan.ID(), principal, penalty)
		r.post(es)
	}
}

func (r *booksRun) close(d time.Time) {
	r.t.Helper()
	st, es, err := domain.CloseDay(r.loan, d, r.state, r.rules)
	if err != nil {
		r.t.Fatal(err)
	}
	r.post(es)
	r.state = st
	r.days[d.Format(domain.DateLayout)] = es
	r.consistent()
}

// consistent checks that the loan's books state is its accounts' balances.
func (r *booksRun) consistent() {
	r.t.Helper()
	s := r.state
	for _, c := range []struct {
		kind  domain.AccountKind
		state int64
	}{
		{domain.AccountOverduePrincipal, s.OverduePrincipal},
		{domain.AccountInterestReceivable, s.InterestReceivable},
		{domain.AccountServiceReceivable, s.ServiceReceivable},
		{domain.AccountPenaltyReceivable, s.PenaltyReceivable},
		{domain.AccountInterestInAdvance, s.InterestAdvance},
		{domain.AccountServiceInAdvance, s.ServiceAdvance},
		{domain.AccountProvision, s.Provision},
		{domain.AccountMemoNonAccruedInterest, s.MemoInterest},
		{domain.AccountMemoNonAccruedService, s.MemoService},
		{domain.AccountMemoNonAccruedPenalty, s.MemoPenalty},
		{domain.AccountMemoWrittenOff, s.MemoWrittenOff},
	} {
		if got := r.balance(c.kind); got != c.state || got < 0 {
			r.t.Fatalf("%s: the ledger holds %d, the books state %d (after %s)", c.kind, got, c.state, s.Day.Format(domain.DateLayout))
		}
	}
	// The items' books add up to the loan's, and none is below zero.
	var rec, memo [2]int64
	var ahead int64
	for k, it := range s.Items {
		for c := range 2 {
			rec[c] += it.Receivable[c]
			memo[c] += it.Memo[c]
			if it.Receivable[c] < 0 || it.Memo[c] < 0 || it.Taken[c] < 0 {
				r.t.Fatalf("item %d: %+v", k, it)
			}
		}
		if it.Advance < 0 || it.WaivedAhead < 0 {
			r.t.Fatalf("item %d: %+v", k, it)
		}
		ahead += it.Advance
	}
	if rec != [2]int64{s.InterestReceivable, s.ServiceReceivable} || memo != [2]int64{s.MemoInterest, s.MemoService} ||
		ahead != s.InterestAdvance+s.ServiceAdvance {
		r.t.Fatalf("the items hold receivables %v, memo %v, advance %d; the loan %+v", rec, memo, ahead, s)
	}
}

// amount is what the day's close posted to the kind, in its normal sign.
func (r *booksRun) posted(day string, k domain.AccountKind) int64 {
	var v int64
	for _, e := range r.days[day] {
		if e.Account.Kind == k {
			v += e.Debit - e.Credit
		}
	}
	if k.Normal() == domain.SideCredit {
		return -v
	}
	return v
}

func TestCloseAccruesEachDayWithoutDrift(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	r := newBooksRun(t, loan, domain.DefaultBooksRules())
	r.run("2026-01-31", "2026-03-01", nil)
	// 1 000 000 000 × 28 % / 365 = 767 123.29 a day: through one day 767 123, through two
	// 1 534 246.58 → 1 534 247, so the second day posts 767 124.
	for _, c := range []struct {
		day  string
		want int64
	}{
		{"2026-01-31", 767_123}, {"2026-02-01", 767_124}, {"2026-02-02", 767_123}, {"2026-02-03", 767_123},
	} {
		if got := r.posted(c.day, domain.AccountInterestIncome); got != c.want {
			t.Errorf("close of %s: interest %d, want %d", c.day, got, c.want)
		}
	}
	// The first item's 28 days add up to exactly its interest, 21 479 452 (schedule_test.go).
	var sum int64
	for d := date("2026-01-31"); d.Before(date("2026-02-28")); d = d.AddDate(0, 0, 1) {
		sum += r.posted(d.Format(domain.DateLayout), domain.AccountInterestIncome)
	}
	if sum != 21_479_452 {
		t.Fatalf("the first period's days accrued %d, want 21 479 452", sum)
	}
	// At the close of its payment date, the unpaid item's principal is overdue; the penalty
	// starts the day after, on it.
	items := schedule(t, loan)
	if got := r.posted("2026-02-28", domain.AccountOverduePrincipal); got != items[0].Principal {
		t.Fatalf("close of 2026-02-28 moved %d to overdue principal, want %d", got, items[0].Principal)
	}
	if p := r.posted("2026-02-28", domain.AccountPenaltyIncome); p != 0 {
		t.Fatalf("penalty %d on the payment date", p)
	}
	if p, want := r.posted("2026-03-01", domain.AccountPenaltyIncome), (items[0].Principal*5+5000)/10000; p != want {
		t.Fatalf("penalty of 2026-03-01: %d, want %d", p, want)
	}
	// A second close of a closed day posts nothing and changes nothing.
	st, es, err := domain.CloseDay(loan, date("2026-03-01"), r.state, r.rules)
	if err != nil || len(es) != 0 || !reflect.DeepEqual(st, r.state) {
		t.Fatalf("a second close posted %v (%v)", es, err)
	}
}

func TestCloseClassifiesAndProvisions(t *testing.T) {
	t.Parallel()
	r := newBooksRun(t, goldenLoan(), domain.DefaultBooksRules())
	r.run("2026-01-31", "2026-03-02", nil)
	// Standard at 1 %: on the principal and the receivables.
	if r.state.Class != "SUBSTANDARD" || r.state.DaysOverdue != 2 {
		t.Fatalf("class %s, %d days overdue, want SUBSTANDARD, 2", r.state.Class, r.state.DaysOverdue)
	}
	exposure := int64(1_000_000_000) + r.state.InterestReceivable + r.state.PenaltyReceivable
	if want := (exposure*1000 + 5000) / 10000; r.state.Provision != want {
		t.Fatalf("provision %d, want 10 %% of %d = %d", r.state.Provision, exposure, want)
	}
	// The day before, 1 day overdue at the close of 2026-03-01? the item fell due on 02-28:
	// 03-01 is its first day overdue.
	if got := r.posted("2026-02-28", domain.AccountProvision); got <= 0 {
		t.Fatalf("the close of the issue month's days provisions %d", got)
	}
}

func TestPaymentSettlesReceivablesAndTheAdvance(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	items := schedule(t, loan)
	r := newBooksRun(t, loan, domain.DefaultBooksRules())
	// TERM pays the first instalment on 02-10: the 10 days closed (01-31 to 02-09) settle the
	// receivable, the period's other 18 days' interest is paid in advance.
	r.run("2026-01-31", "2026-02-09", nil)
	accrued := r.state.InterestReceivable
	if accrued != 7_671_233 { // 10 × 767 123.29 = 7 671 232.88
		t.Fatalf("10 days accrued %d, want 7 671 233", accrued)
	}
	r.do(date("2026-02-10"), booksOp{pay: items[0].Total()})
	// The item's principal paid 18 days early lowers its period's interest: the interest paid
	// ahead beyond it went to principal (E), so the advance holds the item's interest as it now
	// stands less the 10 days accrued.
	item := schedule(t, loan)[0]
	if item.Interest >= items[0].Interest {
		t.Fatalf("no interest given back: %d", item.Interest)
	}
	if r.state.InterestReceivable != 0 || r.state.InterestAdvance != item.Interest-accrued {
		t.Fatalf("after TERM: receivable %d, advance %d, want 0, %d", r.state.InterestReceivable, r.state.InterestAdvance,
			item.Interest-accrued)
	}
	if r.balance(domain.AccountLoan) != item.Residue {
		t.Fatalf("loan %d", r.balance(domain.AccountLoan))
	}
	r.close(date("2026-02-10"))
	// 02-10 holds the principal the payment left, 924 027 703: 10 days of 1 000 000 000 and one
	// of it accrue 8 380 075.92 → 8 380 076, less the 7 671 233 of the 10 days.
	if r.posted("2026-02-10", domain.AccountInterestIncome) != 708_843 || r.state.InterestReceivable != 0 {
		t.Fatalf("the close of 02-10 posted %d income, receivable left %d", r.posted("2026-02-10", domain.AccountInterestIncome),
			r.state.InterestReceivable)
	}
	r.run("2026-02-11", "2026-02-27", nil)
	if r.state.InterestAdvance != 0 || r.state.InterestReceivable != 0 || r.balance(domain.AccountInterestIncome) != item.Interest {
		t.Fatalf("end of the period: advance %d, receivable %d, income %d, want 0, 0, %d", r.state.InterestAdvance,
			r.state.InterestReceivable, r.balance(domain.AccountInterestIncome), item.Interest)
	}
	r.close(date("2026-02-28"))
	if r.state.OverduePrincipal != 0 {
		t.Fatalf("a paid item's principal went overdue: %d", r.state.OverduePrincipal)
	}
}

func TestInterestGivenBackComesOutOfTheAdvance(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	items := schedule(t, loan)
	r := newBooksRun(t, loan, domain.DefaultBooksRules())
	// TERM on 02-10 pays the period ahead; EARLY on 02-15 lowers the principal, so the interest
	// paid ahead for the days after is more than they now accrue: E goes to principal out of
	// the advance.
	r.run("2026-01-31", "2026-02-14", map[string]booksOp{"2026-02-10": {pay: items[0].Total()}})
	items = schedule(t, loan)
	before := r.state.InterestAdvance
	r.do(date("2026-02-15"), booksOp{pay: 300_000_000, early: true})
	if r.state.InterestAdvance >= before {
		t.Fatalf("advance %d after EARLY, %d before: nothing given back", r.state.InterestAdvance, before)
	}
	given := before - r.state.InterestAdvance
	r.run("2026-02-15", "2026-03-31", nil)
	now := schedule(t, loan)
	if now[0].Interest != items[0].Interest-given {
		t.Fatalf("the first item keeps %d interest, paid %d less %d given back", now[0].Interest, items[0].Interest, given)
	}
	// Over the period, income is the interest paid less what was given back.
	var first int64
	for d := date("2026-01-31"); d.Before(date("2026-02-28")); d = d.AddDate(0, 0, 1) {
		first += r.posted(d.Format(domain.DateLayout), domain.AccountInterestIncome)
	}
	if first != now[0].Interest {
		t.Fatalf("the first period accrued %d, its item shows %d", first, now[0].Interest)
	}
	if r.state.InterestAdvance != 0 {
		t.Fatalf("advance %d left", r.state.InterestAdvance)
	}
}

func TestNonAccrualAndCure(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	r := newBooksRun(t, loan, domain.DefaultBooksRules())
	// The first item falls due 02-28: 90 days overdue on 05-29.
	r.run("2026-01-31", "2026-05-28", nil)
	if r.state.NonAccrual || r.state.DaysOverdue != 89 {
		t.Fatalf("non-accrual %v at %d days", r.state.NonAccrual, r.state.DaysOverdue)
	}
	receivable := r.state.InterestReceivable + r.state.PenaltyReceivable
	income := r.balance(domain.AccountInterestIncome) + r.balance(domain.AccountPenaltyIncome)
	r.close(date("2026-05-29"))
	if !r.state.NonAccrual || r.state.InterestReceivable != 0 || r.state.PenaltyReceivable != 0 {
		t.Fatalf("at 90 days: non-accrual %v, receivables %d, %d", r.state.NonAccrual, r.state.InterestReceivable,
			r.state.PenaltyReceivable)
	}
	memo := r.state.MemoInterest + r.state.MemoPenalty
	after := r.balance(domain.AccountInterestIncome) + r.balance(domain.AccountPenaltyIncome)
	if after != income-receivable || memo <= receivable {
		t.Fatalf("income %d → %d (receivables %d), memo %d", income, after, receivable, memo)
	}
	r.run("2026-05-30", "2026-06-05", nil)
	if got := r.balance(domain.AccountInterestIncome) + r.balance(domain.AccountPenaltyIncome); got != after {
		t.Fatalf("income moved in non-accrual: %d → %d", after, got)
	}
	// Paying everything owed cures the loan: the memo's charges become income when paid, and
	// the next close accrues on balance again.
	p := position(t, loan, noon("2026-06-06"))
	r.do(date("2026-06-06"), booksOp{pay: p.Fine() + p.TermInterest, early: true})
	if r.state.MemoInterest != 0 || r.state.MemoPenalty != 0 {
		t.Fatalf("memo %d + %d after the curing payment", r.state.MemoInterest, r.state.MemoPenalty)
	}
	r.close(date("2026-06-06"))
	if r.state.NonAccrual || r.posted("2026-06-06", domain.AccountInterestReceivable) <= 0 {
		t.Fatalf("cured: non-accrual %v, receivable posted %d", r.state.NonAccrual, r.posted("2026-06-06", domain.AccountInterestReceivable))
	}
	r.lifeTotals()
}

// lifeTotals checks each charge's income: the cash paid for it (net of interest given back to
// principal), plus what is accrued and owed on balance, less what was paid ahead of its days.
// Waived charges never reach income; charges in the non-accrual memo reach it only when paid.
func (r *booksRun) lifeTotals() {
	r.t.Helper()
	s := r.state
	if got, want := r.balance(domain.AccountInterestIncome), r.paidInterest+s.InterestReceivable-s.InterestAdvance; got != want {
		r.t.Fatalf("interest income %d, paid %d, receivable %d, advance %d: want %d", got, r.paidInterest, s.InterestReceivable,
			s.InterestAdvance, want)
	}
	if got, want := r.balance(domain.AccountPenaltyIncome), r.paidPenalty+s.PenaltyReceivable; got != want {
		r.t.Fatalf("penalty income %d, paid %d, receivable %d: want %d", got, r.paidPenalty, s.PenaltyReceivable, want)
	}
}

func TestWaiverReversesItsAccrual(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	r := newBooksRun(t, loan, domain.DefaultBooksRules())
	r.run("2026-01-31", "2026-04-14", nil)
	ir, pr := r.state.InterestReceivable, r.state.PenaltyReceivable
	income := r.balance(domain.AccountInterestIncome)
	pos := position(t, loan, noon("2026-04-15"))
	r.do(date("2026-04-15"), booksOp{waiveInterest: -1, waivePenalty: -1})
	// The overdue interest was all accrued: the receivable falls by it, and so does income. The
	// penalty waived includes 04-15's own, not yet accrued: the close of 04-15 does not accrue it.
	if r.waivedInterest != pos.OverdueInterest || r.state.InterestReceivable != ir-pos.OverdueInterest ||
		r.balance(domain.AccountInterestIncome) != income-pos.OverdueInterest {
		t.Fatalf("waived %d: receivable %d → %d, income %d → %d", r.waivedInterest, ir, r.state.InterestReceivable, income,
			r.balance(domain.AccountInterestIncome))
	}
	if r.state.PenaltyReceivable != 0 || pos.Penalty <= pr {
		t.Fatalf("penalty waived %d (receivable was %d), receivable now %d", pos.Penalty, pr, r.state.PenaltyReceivable)
	}
	r.close(date("2026-04-15"))
	if got := r.posted("2026-04-15", domain.AccountPenaltyIncome); got != 0 {
		t.Fatalf("the close accrued %d of the waived day's penalty", got)
	}
	r.run("2026-04-16", "2026-04-30", nil)
	r.lifeTotals()
}

func TestPayoffAndWriteOff(t *testing.T) {
	t.Parallel()
	t.Run("payoff leaves nothing on the loan's accounts", func(t *testing.T) {
		t.Parallel()
		loan := goldenLoan()
		r := newBooksRun(t, loan, domain.DefaultBooksRules())
		r.run("2026-01-31", "2026-04-20", map[string]booksOp{"2026-04-20": {pay: -1}})
		if r.state.Class != "" || r.state.DaysOverdue != 0 { // only an open loan is classified
			t.Errorf("a paid-off loan: class %q, %d days overdue", r.state.Class, r.state.DaysOverdue)
		}
		for _, k := range []domain.AccountKind{domain.AccountLoan, domain.AccountOverduePrincipal, domain.AccountInterestReceivable,
			domain.AccountPenaltyReceivable, domain.AccountInterestInAdvance, domain.AccountProvision} {
			if b := r.balance(k); b != 0 {
				t.Errorf("%s: %d after the payoff", k, b)
			}
		}
		r.lifeTotals()
	})
	t.Run("write-off uses the provision first; a recovery is income", func(t *testing.T) {
		t.Parallel()
		loan := goldenLoan()
		r := newBooksRun(t, loan, domain.DefaultBooksRules())
		r.run("2026-01-31", "2026-04-19", nil)
		provision := r.state.Provision
		r.do(date("2026-04-20"), booksOp{writeOff: true})
		if r.balance(domain.AccountLoan) != 0 || r.balance(domain.AccountOverduePrincipal) != 0 || r.balance(domain.AccountProvision) != 0 {
			t.Fatalf("after the write-off: loan %d, overdue %d, provision %d", r.balance(domain.AccountLoan),
				r.balance(domain.AccountOverduePrincipal), r.balance(domain.AccountProvision))
		}
		if got := r.balance(domain.AccountWriteOffExpense); got != 1_000_000_000-provision {
			t.Fatalf("write-off expense %d, want %d", got, 1_000_000_000-provision)
		}
		if r.state.MemoWrittenOff != 1_000_000_000 {
			t.Fatalf("memo %d", r.state.MemoWrittenOff)
		}
		r.run("2026-04-20", "2026-04-25", map[string]booksOp{"2026-04-22": {pay: 50_000_000}})
		if got := r.balance(domain.AccountRecoveryIncome); got <= 0 {
			t.Fatalf("recovery income %d", got)
		}
	})
}

func TestBooksRulesValidate(t *testing.T) {
	t.Parallel()
	ok := domain.DefaultBooksRules()
	cases := []struct {
		name string
		edit func(r *domain.BooksRules)
		ok   bool
	}{
		{"default", func(*domain.BooksRules) {}, true},
		{"ifrs 9", func(r *domain.BooksRules) { *r = domain.IFRS9BooksRules() }, true},
		{"gap", func(r *domain.BooksRules) { r.Provisions[1].From = 2 }, false},
		{"not from 0", func(r *domain.BooksRules) { r.Provisions = r.Provisions[1:] }, false},
		{"bounded end", func(r *domain.BooksRules) { r.Provisions[4].To = 400 }, false},
		{"over 100 %", func(r *domain.BooksRules) { r.Provisions[4].Basis = 10001 }, false},
		{"no class", func(r *domain.BooksRules) { r.Provisions[0].Class = "" }, false},
		{"non-accrual 0", func(r *domain.BooksRules) { r.NonAccrualDays = 0 }, false},
	}
	for _, c := range cases {
		r := ok
		r.Provisions = append([]domain.ProvisionClass(nil), ok.Provisions...)
		c.edit(&r)
		if err := r.Validate(); (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// TestBooksOverRandomLives walks loans through random payments and waivers with a close every
// day: every close and payment balances, the books state is always its accounts' balances and
// never below zero, and at the payoff each charge's income is exactly its cash paid.
func TestBooksOverRandomLives(t *testing.T) {
	t.Parallel()
	for seed := range uint64(12) {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(seed, 51))
			loan := goldenLoan()
			r := newBooksRun(t, loan, domain.IFRS9BooksRules())
			day := date("2026-01-31")
			for n := 0; n < 500 && !loan.Closed(); n++ {
				when := noon(day.Format(domain.DateLayout))
				p := position(t, loan, when)
				switch x := rng.IntN(20); {
				case x == 0 && p.Penalty > 0:
					r.do(day, booksOp{waivePenalty: 1 + rng.Int64N(p.Penalty)})
				case x == 1 && p.OverdueInterest > 0:
					r.do(day, booksOp{waiveInterest: 1 + rng.Int64N(p.OverdueInterest)})
				case x < 4:
					r.do(day, booksOp{pay: 1 + rng.Int64N(p.Payoff()), early: x == 3})
				case n > 400:
					r.do(day, booksOp{pay: -1})
				}
				r.close(day)
				day = day.AddDate(0, 0, 1)
			}
			if !loan.Closed() {
				t.Fatal("the loan is not paid off")
			}
			r.close(day)
			r.lifeTotals()
			for _, k := range []domain.AccountKind{domain.AccountLoan, domain.AccountOverduePrincipal, domain.AccountInterestReceivable,
				domain.AccountPenaltyReceivable, domain.AccountInterestInAdvance, domain.AccountProvision,
				domain.AccountMemoNonAccruedInterest, domain.AccountMemoNonAccruedPenalty} {
				if b := r.balance(k); b != 0 {
					t.Errorf("%s: %d after the payoff", k, b)
				}
			}
		})
	}
}

func TestChartMappingIsValidated(t *testing.T) {
	t.Parallel()
	domain.DefaultChart() // panics when the shipped mapping is not valid
	cases := []struct {
		name string
		edit func(m map[string]string)
		want string
	}{
		{"a kind unmapped", func(m map[string]string) { delete(m, "PROVISION") }, "PROVISION is not mapped"},
		{"an unknown kind", func(m map[string]string) { m["LOANS"] = "1" }, `unknown account kind "LOANS"`},
		{"a number for a debit and a credit kind", func(m map[string]string) { m["INTEREST_INCOME"] = m["INTEREST_RECEIVABLE"] },
			"16307 is mapped to both"},
		{"a number for a memo and a balance-sheet kind", func(m map[string]string) { m["MEMO_WRITTEN_OFF"] = m["LOAN"] },
			"12401 is mapped to both"},
		{"a number for two debit kinds", func(m map[string]string) { m["SERVICE_RECEIVABLE"] = m["INTEREST_RECEIVABLE"] }, ""},
	}
	for _, c := range cases {
		m := domain.DefaultChartMapping()
		c.edit(m)
		_, err := domain.NewChart(m)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

func TestCloseBooksOpensALoanOnTheBooksBefore(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	items := schedule(t, loan)
	// Paid on a cash basis before the books kept accruals: the first instalment on 02-10,
	// its interest then all income.
	repay(t, loan, noon("2026-02-10"), domain.PaymentTerm, items[0].Total())
	item := schedule(t, loan)[0]
	rules := domain.DefaultBooksRules()
	// The books start on 02-20: one opening entry brings the loan to what the rules say then.
	postings, err := loan.CloseBooks(date("2026-02-20"), date("2026-02-21"), rules)
	if err != nil || len(postings) != 2 {
		t.Fatalf("%d postings (%v)", len(postings), err)
	}
	open := postings[0]
	if open.Kind != domain.PostingOpening || !open.At.Equal(domain.CloseAt(date("2026-02-20"))) ||
		open.ID != domain.ClosePostingID(loan.ID(), date("2026-02-20")) || postings[1].Kind != domain.PostingClose {
		t.Fatalf("opening %s at %s, then %s", open.Kind, open.At, postings[1].Kind)
	}
	st, ok := loan.Books()
	if !ok || !st.Day.Equal(date("2026-02-21")) {
		t.Fatalf("books %+v", st)
	}
	// The interest paid for the days after 02-21 is no income yet: it moved to the advance.
	accrued, _, _, err := loan.AccruedThrough(date("2026-02-21"))
	if err != nil {
		t.Fatal(err)
	}
	if st.InterestReceivable != 0 || st.InterestAdvance != item.Interest-accrued {
		t.Fatalf("receivable %d, advance %d, want 0, %d", st.InterestReceivable, st.InterestAdvance, item.Interest-accrued)
	}
	var debitedIncome int64
	for _, e := range open.Entries {
		if e.Account.Kind == domain.AccountInterestIncome {
			debitedIncome += e.Debit - e.Credit
		}
	}
	accruedOpen, _, _, _ := loan.AccruedThrough(date("2026-02-20"))
	if debitedIncome != item.Interest-accruedOpen {
		t.Fatalf("the opening took %d out of income, want %d", debitedIncome, item.Interest-accruedOpen)
	}
	// A closed day again posts nothing; the next payment is on the accrual basis.
	if again, err := loan.CloseBooks(date("2026-02-20"), date("2026-02-21"), rules); err != nil || len(again) != 0 {
		t.Fatalf("again: %d postings (%v)", len(again), err)
	}
	_, cash := repay(t, loan, noon("2026-02-22"), domain.PaymentEarly, 1_000_000)
	for _, e := range cash.Entries {
		if e.Account.Kind == domain.AccountInterestIncome {
			t.Fatalf("a payment on the books credits income: %+v", cash.Entries)
		}
	}
}

func TestAPayoffAfterItsDaysCloseIsCaughtUpTheDayAfter(t *testing.T) {
	t.Parallel()
	loan := goldenLoan()
	rules := domain.DefaultBooksRules()
	// The books of 02-05 are closed during 02-05 (a close run for today), then the loan is paid
	// off that day: the day's accrual was on principal the payoff returned.
	if _, err := loan.CloseBooks(date("2026-01-31"), date("2026-02-05"), rules); err != nil {
		t.Fatal(err)
	}
	repay(t, loan, noon("2026-02-05"), domain.PaymentTerm, position(t, loan, noon("2026-02-05")).Payoff())
	after, _ := loan.Books()
	// The payoff paid the interest through 02-04; 02-05's, accrued, is left: 6 days less 5.
	if !loan.Closed() || !loan.BooksOpen() || after.InterestReceivable != 4_602_740-3_835_616 {
		t.Fatalf("closed %v, books open %v, receivable left %d", loan.Closed(), loan.BooksOpen(), after.InterestReceivable)
	}
	postings, err := loan.CloseBooks(date("2026-01-31"), date("2026-02-10"), rules)
	if err != nil || len(postings) != 1 {
		t.Fatalf("%d postings (%v)", len(postings), err)
	}
	st, _ := loan.Books()
	if st.InterestReceivable != 0 || st.Provision != 0 || loan.BooksOpen() || !st.Day.Equal(date("2026-02-06")) {
		t.Fatalf("after the catch-up: %+v, open %v", st, loan.BooksOpen())
	}
}
