package oracle_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tiyin/tiyin/test/oracle"
)

// booksLoan is a new loan keeping its books under rules.
func booksLoan(t *testing.T, terms oracle.Terms, rules oracle.BooksRules) *oracle.Loan {
	t.Helper()
	l := oracle.New(terms)
	if err := l.KeepBooks(rules); err != nil {
		t.Fatal(err)
	}
	return l
}

// ledger rebuilds balances from a journal alone, independently of the loan's own: the debits
// less credits of each account, each day's debits and credits, on balance and off.
type ledger struct {
	bal  map[oracle.Account]int64
	days map[time.Time][2][2]int64
}

func newLedger() *ledger {
	return &ledger{bal: map[oracle.Account]int64{}, days: map[time.Time][2][2]int64{}}
}

func offBalance(a oracle.Account) bool { return strings.HasPrefix(a.String(), "MEMO_") }

func (g *ledger) post(ps []oracle.Posting) {
	for _, p := range ps {
		d := g.days[p.Date]
		for _, ln := range p.Lines {
			off := 0
			if offBalance(ln.Account) {
				off = 1
			}
			d[off][0] += ln.Debit
			d[off][1] += ln.Credit
			g.bal[ln.Account] += ln.Debit - ln.Credit
		}
		g.days[p.Date] = d
	}
}

// normal is a balance on its kind's normal side.
func (g *ledger) normal(a oracle.Account) int64 {
	switch a {
	case oracle.InterestInAdvance, oracle.Provision, oracle.InterestIncome, oracle.ServiceIncome, oracle.PenaltyIncome, oracle.RecoveryIncome:
		return -g.bal[a]
	}
	return g.bal[a]
}

// books is the ledger's balances as oracle.Books (the flags left out).
func (g *ledger) books() oracle.Books {
	return oracle.Books{Loan: g.normal(oracle.LoanPrincipal), OverduePrincipal: g.normal(oracle.OverduePrincipal),
		InterestReceivable: g.normal(oracle.InterestReceivable), ServiceReceivable: g.normal(oracle.ServiceReceivable),
		PenaltyReceivable: g.normal(oracle.PenaltyReceivable), InterestInAdvance: g.normal(oracle.InterestInAdvance),
		Provision: g.normal(oracle.Provision), InterestIncome: g.normal(oracle.InterestIncome), ServiceIncome: g.normal(oracle.ServiceIncome),
		PenaltyIncome: g.normal(oracle.PenaltyIncome), RecoveryIncome: g.normal(oracle.RecoveryIncome),
		ProvisionExpense: g.normal(oracle.ProvisionExpense), WriteOffExpense: g.normal(oracle.WriteOffExpense), Cash: g.normal(oracle.Cash),
		MemoInterest: g.normal(oracle.MemoInterest), MemoService: g.normal(oracle.MemoService), MemoPenalty: g.normal(oracle.MemoPenalty),
		MemoWrittenOff: g.normal(oracle.MemoWrittenOff)}
}

// proofs checks the three proofs from the journal alone: each day Σ debits = Σ credits on
// balance and off; the on-balance accounts sum to zero and each memo pair nets to zero; and
// the balances are the loan's.
func (g *ledger) proofs(b oracle.Books) error {
	for d, s := range g.days {
		for off := range 2 {
			if s[off][0] != s[off][1] {
				return fmt.Errorf("%s: debits %d, credits %d (off balance %t)", d.Format(time.DateOnly), s[off][0], s[off][1], off == 1)
			}
		}
	}
	var sum int64
	for a, v := range g.bal {
		if !offBalance(a) {
			sum += v
		}
	}
	if sum != 0 {
		return fmt.Errorf("the accounts on balance sum to %d", sum)
	}
	for _, pair := range [][2]oracle.Account{{oracle.MemoInterest, oracle.MemoInterestContra}, {oracle.MemoService, oracle.MemoServiceContra},
		{oracle.MemoPenalty, oracle.MemoPenaltyContra}, {oracle.MemoWrittenOff, oracle.MemoWrittenOffContra}} {
		if g.bal[pair[0]]+g.bal[pair[1]] != 0 {
			return fmt.Errorf("%s and %s net to %d", pair[0], pair[1], g.bal[pair[0]]+g.bal[pair[1]])
		}
	}
	want := b
	want.Date, want.NonAccrual, want.DaysOverdue, want.Class = time.Time{}, false, 0, ""
	if got := g.books(); got != want {
		return fmt.Errorf("the journal gives %+v, the loan's books %+v", got, want)
	}
	return nil
}

// What a random walk met, so the proofs are known to have been put to the test.
type booksCoverage struct {
	loans, days, payments, term, early, givenBack, advance, waivers, nonAccrual, cured, writeOffs, recoveries, provisions, closedLoans int
}

// booksWalk walks a history through the oracle keeping its books, checks every proof at every
// close and event, and rebuilds the books from the journal at the end.
func booksWalk(h history, rules oracle.BooksRules, cov *booksCoverage) (*oracle.Loan, error) {
	o := oracle.New(h.Terms)
	if err := o.KeepBooks(rules); err != nil {
		return nil, err
	}
	cov.loans++
	payments := h.Payments
	wasNonAccrual, writtenOff := false, false
	for day := 0; day <= h.Days; day++ {
		today := h.Terms.IssuedOn.AddDate(0, 0, day)
		o.Advance(today)
		cov.days++
		b := o.Books()
		if day > 0 && (!b.Date.Equal(today.AddDate(0, 0, -1)) || b != o.BooksNow()) {
			return o, fmt.Errorf("day %d: the books after the close of %s are %+v, now %+v", day, b.Date.Format(time.DateOnly), b, o.BooksNow())
		}
		if b.NonAccrual {
			wasNonAccrual = true
		} else if wasNonAccrual && !writtenOff && !o.Closed() {
			cov.cured++
			wasNonAccrual = false
		}
		if b.InterestInAdvance > 0 {
			cov.advance++
		}
		if b.Class != "" && b.Class != rules.Classes[0].Name {
			cov.provisions++
		}
		for ; len(payments) > 0 && payments[0].Day == day; payments = payments[1:] {
			p := payments[0]
			if o.Closed() {
				continue
			}
			before := o.Income()
			if err := selfCheckStep(o, p); err != nil {
				return o, fmt.Errorf("day %d, %s (early %t): %w", day, kindNames[p.Kind], p.Early, err)
			}
			after := o.Income()
			switch {
			case p.Kind == writeOff:
				cov.writeOffs++
				writtenOff = true
			case p.Kind == waivePenalty || p.Kind == waiveInterest:
				cov.waivers++
			case p.Kind < kinds && writtenOff && after.Gross+after.PenaltyPaid != before.Gross+before.PenaltyPaid:
				cov.recoveries++
			case p.Kind < kinds:
				cov.payments++
				if p.Early {
					cov.early++
				} else {
					cov.term++
				}
			}
			if after.GivenBack > before.GivenBack {
				cov.givenBack++
			}
			if err := o.CheckBooks(); err != nil {
				return o, fmt.Errorf("day %d, %s: %w", day, kindNames[p.Kind], err)
			}
		}
		if err := o.Check(); err != nil {
			return o, fmt.Errorf("day %d: %w", day, err)
		}
	}
	if wasNonAccrual {
		cov.nonAccrual++
	}
	// One more close, so the last day's events are closed too.
	o.Advance(h.Terms.IssuedOn.AddDate(0, 0, h.Days+1))
	if err := o.Check(); err != nil {
		return o, err
	}
	if o.Closed() {
		cov.closedLoans++
	}
	g := newLedger()
	g.post(o.Journal())
	if err := g.proofs(o.Books()); err != nil {
		return o, err
	}
	return o, nil
}

// randomRules are books' settings drawn at random: the non-accrual threshold (often short, to
// reach it) and either table.
func randomRules(rng *rand.Rand) oracle.BooksRules {
	r := oracle.BooksRules{NonAccrualDays: []int{1, 5, 30, 90, 90}[rng.IntN(5)], Classes: oracle.ExampleClasses}
	if rng.IntN(2) == 0 {
		r.Classes = oracle.IFRS9Classes
	}
	return r
}

// TestBooksProofsOverRandomLifecycles walks random histories (the lifecycle comparison's: TERM
// and EARLY payments of any part, missed dates and long silences, waivers, restructurings,
// write-offs and recoveries) through the oracle alone, keeping its books under random rules.
// At every close and event the books' proofs hold (CheckBooks): the day balances, the memo
// pairs net to zero, the sub-ledger is the accounts, income is what was paid (less E) plus
// what is receivable, and, once a loan is closed, its income over its life is what was paid
// less what was given back. At the end the journal alone gives the same balances.
func TestBooksProofsOverRandomLifecycles(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*seed+51, 2026))
	n := 120
	if testing.Short() {
		n = 50
	}
	var cov booksCoverage
	for k := range n {
		h := randomHistory(rng, 3)
		rules := randomRules(rng)
		if _, err := booksWalk(h, rules, &cov); err != nil {
			t.Fatalf("loan %d (%s, non-accrual after %d days): %v\n%s", k, h.Terms, rules.NonAccrualDays, err, h.goCase())
		}
	}
	t.Logf("%+v", cov)
	// The walk met every case the proofs are about.
	for what, count := range map[string]int{"TERM payments": cov.term, "EARLY payments": cov.early, "E given back": cov.givenBack,
		"days with interest paid ahead": cov.advance, "waivers": cov.waivers, "loans in non-accrual": cov.nonAccrual,
		"cures": cov.cured, "write-offs": cov.writeOffs, "recoveries": cov.recoveries, "days provisioned above the first class": cov.provisions,
		"loans closed": cov.closedLoans} {
		if count == 0 {
			t.Errorf("no %s in %d loans", what, n)
		}
	}
}

// TestBooksSubLedgerEqualsControl keeps a portfolio's general ledger from every loan's journal
// and checks, after each day's close, that for each account kind the sum over the loans'
// books equals its control account (§9.1's third proof), and that the day balances.
func TestBooksSubLedgerEqualsControl(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*seed+52, 2026))
	type walking struct {
		h        history
		o        *oracle.Loan
		payments []payment
		seen     int // journal postings already in the GL
	}
	var loans []*walking
	first, last := date("2100-01-01"), date("1900-01-01")
	for range 12 {
		h := randomHistory(rng, 1)
		o := oracle.New(h.Terms)
		if err := o.KeepBooks(randomRules(rng)); err != nil {
			t.Fatal(err)
		}
		loans = append(loans, &walking{h: h, o: o, payments: h.Payments})
		first = minDate(first, h.Terms.IssuedOn)
		last = maxDate(last, h.Terms.IssuedOn.AddDate(0, 0, h.Days))
	}
	gl := newLedger()
	for today := first; !today.After(last); today = today.AddDate(0, 0, 1) {
		var sum oracle.Books
		for _, w := range loans {
			if today.Before(w.h.Terms.IssuedOn) || today.After(w.h.Terms.IssuedOn.AddDate(0, 0, w.h.Days)) {
				continue // not issued yet, or its history over: its books stand still
			}
			w.o.Advance(today)
			for ; len(w.payments) > 0 && w.h.Terms.IssuedOn.AddDate(0, 0, w.payments[0].Day).Equal(today); w.payments = w.payments[1:] {
				if !w.o.Closed() {
					_ = selfCheckStep(w.o, w.payments[0])
				}
			}
			if err := w.o.CheckBooks(); err != nil {
				t.Fatalf("%s: %v", w.h.Terms, err)
			}
		}
		// The close of yesterday is done for every loan: post yesterday's postings (and the
		// issues) to the GL, and compare.
		for _, w := range loans {
			if today.Before(w.h.Terms.IssuedOn) {
				continue
			}
			j := w.o.Journal()
			n := w.seen
			for n < len(j) && j[n].Date.Before(today) {
				n++
			}
			gl.post(j[w.seen:n])
			w.seen = n
			sum = addBooks(sum, w.o.Books())
		}
		want := gl.books()
		if sum != want {
			t.Fatalf("after the close of %s the loans' books add up to %+v, the control accounts are %+v", today.AddDate(0, 0, -1).Format(time.DateOnly), sum, want)
		}
	}
	if err := gl.proofs(gl.books()); err != nil {
		t.Fatal(err)
	}
}

func minDate(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxDate(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// addBooks adds b's balances to sum (the flags left out).
func addBooks(sum, b oracle.Books) oracle.Books {
	sum.Loan += b.Loan
	sum.OverduePrincipal += b.OverduePrincipal
	sum.InterestReceivable += b.InterestReceivable
	sum.ServiceReceivable += b.ServiceReceivable
	sum.PenaltyReceivable += b.PenaltyReceivable
	sum.InterestInAdvance += b.InterestInAdvance
	sum.Provision += b.Provision
	sum.InterestIncome += b.InterestIncome
	sum.ServiceIncome += b.ServiceIncome
	sum.PenaltyIncome += b.PenaltyIncome
	sum.RecoveryIncome += b.RecoveryIncome
	sum.ProvisionExpense += b.ProvisionExpense
	sum.WriteOffExpense += b.WriteOffExpense
	sum.Cash += b.Cash
	sum.MemoInterest += b.MemoInterest
	sum.MemoService += b.MemoService
	sum.MemoPenalty += b.MemoPenalty
	sum.MemoWrittenOff += b.MemoWrittenOff
	return sum
}
