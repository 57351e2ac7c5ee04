package oracle_test

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
	"github.com/tiyin/tiyin/test/oracle"
)

// The lifecycle comparison (make oracle) walks random loans through random histories, day by
// day, through the domain and the oracle side by side, and compares every amount the API
// reports with zero tolerance. A short run is part of make test; a failing loan is shrunk to
// the fewest payments and days that still differ and printed as a Go test case.
var (
	seed  = flag.Uint64("oracle.seed", 1, "the comparison's seed")
	loans = flag.Int("oracle.loans", 60, "how many loans the comparison walks")
	years = flag.Int("oracle.years", 5, "the longest history of a loan, in years")
	quick = flag.Bool("oracle.noshrink", false, "report a difference without shrinking its history")
	from  = flag.Int("oracle.from", 0, "walk the seed's loans from this number on (a run resumed after a fix)")
	only  = flag.Int("oracle.only", -1, "walk only this loan of the seed's (its number in a failure's message)")
	trace = flag.Bool("oracle.trace", false, "print each payment and position of a compared loan")
	all   = flag.Bool("oracle.all", false, "walk every loan and count those that differ, printing the first difference of each (no shrinking)")
)

// kind says how a payment's amount is found on its day, so that a history still means
// something when the shrinker drops payments before it.
type kind int

const (
	due           kind = iota // what is due today (overdue, the current item, the penalty), or 1
	part                      // a share of the payoff
	tiny                      // 1 tiyin
	payoff                    // the whole payoff
	less                      // the payoff less one tiyin
	over                      // one tiyin over the payoff: refused, changes nothing
	kinds                     // the payment kinds; the operators' actions follow
	waivePenalty              // a waiver of a share of the penalty (all of it for share 0)
	waiveInterest             // a waiver of a share of the overdue interest (all of it for share 0)
	writeOff                  // the loan written off: its debt stands still, later payments recover it
	extend                    // the term extended by 1–6 months (by share)
	holiday                   // a payment holiday of 1–3 months (by share)
)

var kindNames = [...]string{"due", "part", "tiny", "payoff", "less", "over", "", "waivePenalty", "waiveInterest", "writeOff",
	"extend", "holiday"}

// payment is one payment, or operators' action, of a history: on day Day (from issue), of its kind.
type payment struct {
	Day   int
	Early bool
	Kind  kind
	Share float64 // for part: the share of the payoff
	Late  bool    // made at 23:59:59 Tashkent, the business day's last second, not at noon
}

// history is a loan's terms and its payments.
type history struct {
	Terms    oracle.Terms
	Days     int
	Payments []payment
}

// goCase prints the history as a Go table-test case.
func (h history) goCase() string {
	t := h.Terms
	var b strings.Builder
	fmt.Fprintf(&b, "{terms: oracle.Terms{Amount: %d, Months: %d, Rate: %d, Service: %d, PenaltyDaily: %d, Differentiated: %t, IssuedOn: date(%q)},\n",
		t.Amount, t.Months, t.Rate, t.Service, t.PenaltyDaily, t.Differentiated, t.IssuedOn.Format(time.DateOnly))
	fmt.Fprintf(&b, "\tdays: %d, payments: []payment{", h.Days)
	for i, p := range h.Payments {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "{Day: %d, Early: %t, Kind: %s", p.Day, p.Early, kindNames[p.Kind])
		if p.Kind == part || p.Kind > kinds && p.Kind != writeOff {
			fmt.Fprintf(&b, ", Share: %v", p.Share) // shortest form that reads back exactly
		}
		if p.Late {
			b.WriteString(", Late: true")
		}
		b.WriteString("}")
	}
	b.WriteString("}},")
	return b.String()
}

// randomHistory draws terms verify accepts over the whole range the interface allows (1 tiyin
// to 9e15, 1–36 months, 0–99.99 %, service, penalties up to 0.5 % a day, both schedule types,
// issue dates over leap years and month ends) and a history of up to years: instalments on
// their due dates, TERM and EARLY payments of any part, prepayments followed by EARLY, several
// payments in one period, overdue spells.
func randomHistory(rng *rand.Rand, years int) history {
	for {
		issued := time.Date(2024+rng.IntN(8), time.Month(1+rng.IntN(12)), 1, 0, 0, 0, 0, time.UTC)
		switch rng.IntN(4) {
		case 0:
			issued = issued.AddDate(0, 1, -1)
		case 1:
			issued = issued.AddDate(0, 0, 27+rng.IntN(2))
		default:
			issued = issued.AddDate(0, 0, rng.IntN(28))
		}
		amount := max(1, min(int64(math.Pow(10, rng.Float64()*15.95)), 9_000_000_000_000_000))
		rate := 1 + rng.Int64N(9999) // 0.01 % to 99.99 %
		switch rng.IntN(20) {
		case 0, 1, 2, 3, 4: // near the cap
			rate = 7000 + rng.Int64N(3000)
		case 5:
			rate = []int64{1, 9999, 0}[rng.IntN(3)]
		}
		t := oracle.Terms{Amount: amount, Months: 1 + rng.IntN(36), Rate: rate, Differentiated: rng.IntN(3) == 0,
			PenaltyDaily: []int64{5, 5, 1, 10, 50}[rng.IntN(5)], IssuedOn: issued}
		if rng.IntN(3) == 0 {
			t.Service = rng.Int64N(300)
		}
		if !oracle.WithinCap(t) {
			continue
		}
		h := history{Terms: t, Days: 30 + rng.IntN(365*years)}
		dues := map[time.Time]bool{}
		for _, d := range oracle.Dates(issued, t.Months) {
			dues[d] = true
		}
		busy := rng.IntN(3) == 0 // some loans pay often, several times a period
		writtenOff := -1         // some are written off, and pay (recover) after it
		if rng.IntN(5) == 0 {
			writtenOff = rng.IntN(h.Days + 1)
		}
		for day := 0; day <= h.Days; day++ {
			onDue := dues[issued.AddDate(0, 0, day)]
			if day == writtenOff {
				h.Payments = append(h.Payments, payment{Day: day, Kind: writeOff})
			}
			switch r := rng.IntN(1000); {
			case r >= 990: // the bank's operators waive penalty or overdue interest, or restructure
				p := payment{Day: day, Kind: []kind{waivePenalty, waiveInterest, extend, holiday}[rng.IntN(4)]}
				if rng.IntN(2) == 0 || p.Kind >= extend {
					p.Share = rng.Float64()
				}
				h.Payments = append(h.Payments, p)
			case r < 15: // a long silence
				day += 30 + rng.IntN(400)
			case onDue && r < 700:
				h.Payments = append(h.Payments, payment{Day: day, Early: rng.IntN(4) == 0, Kind: due, Late: rng.IntN(8) == 0})
			case r < 35 && busy: // several payments on one day, some in its last second
				for range 2 + rng.IntN(3) {
					h.Payments = append(h.Payments, payment{Day: day, Early: rng.IntN(2) == 0, Kind: part, Share: rng.Float64() / 6,
						Late: rng.IntN(3) == 0})
				}
			case r < 30 || busy && r < 80:
				p := payment{Day: day, Early: rng.IntN(2) == 0, Kind: kind(rng.IntN(int(kinds))), Share: rng.Float64(), Late: rng.IntN(6) == 0}
				if rng.IntN(3) > 0 && p.Kind != part {
					p.Kind = part
				}
				if p.Kind == part && rng.IntN(2) == 0 {
					p.Share = rng.Float64() / 20
				}
				h.Payments = append(h.Payments, p)
				if rng.IntN(3) == 0 { // a second payment the same day or the next
					q := payment{Day: day + rng.IntN(2), Early: rng.IntN(2) == 0, Kind: part, Share: rng.Float64() / 4}
					h.Payments = append(h.Payments, q)
				}
			}
		}
		return h
	}
}

// walk is a comparison's outcome: what was compared, and the first difference or broken rule.
type walk struct {
	payments, actions, restructured, amounts, closes int
	err                                              error
	books                                            *bookLedger // the domain's postings, summed
}

func (w *walk) fail(day int, format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("day %d: %s", day, fmt.Sprintf(format, args...))
	}
}

// compareItems compares every reported field of two schedules.
func (w *walk) compareItems(day int, what string, got []domain.ScheduleItem, want []oracle.Item) {
	if len(got) != len(want) {
		w.fail(day, "%s: %d items, the oracle has %d", what, len(got), len(want))
		return
	}
	for k := range got {
		g, o := got[k], want[k]
		w.amounts += 6
		if !g.PaymentDate.Equal(o.Date) || g.PeriodDays != o.PeriodDays || g.Principal != o.Principal || g.Interest != o.Interest ||
			g.Service != o.Service || g.Residue != o.Residue {
			w.fail(day, "%s: item %d is {%s %d days: principal %d interest %d service %d residue %d}, the oracle's {%s %d days: %d %d %d %d}",
				what, k+1, g.PaymentDate.Format(time.DateOnly), g.PeriodDays, g.Principal, g.Interest, g.Service, g.Residue,
				o.Date.Format(time.DateOnly), o.PeriodDays, o.Principal, o.Interest, o.Service, o.Residue)
			return
		}
	}
}

// nonNegative: no debt part a partner reads is ever negative: check's five parts and loan
// info's totals (totalResidue, the payoff, and totalFine).
func (w *walk) nonNegative(day int, p domain.Position) {
	if p.NotDuePrincipal < 0 || p.OverduePrincipal < 0 || p.OverdueInterest < 0 || p.TermInterest < 0 || p.Penalty < 0 ||
		p.Payoff() < 0 || p.Fine() < 0 {
		w.fail(day, "a negative debt part: %+v", p)
	}
}

func comparePosition(w *walk, day int, what string, got domain.Position, want oracle.Position) {
	w.amounts += 5
	g := oracle.Position{NotDuePrincipal: got.NotDuePrincipal, OverduePrincipal: got.OverduePrincipal, OverdueInterest: got.OverdueInterest,
		TermInterest: got.TermInterest, Penalty: got.Penalty}
	if g != want {
		w.fail(day, "%s: the domain owes %+v, the oracle %+v", what, g, want)
	}
}

// domainLoan is the loan the domain keeps for terms.
// checkItems: the overdue items of the console's loan view (ItemsAt) add up, exactly, to the
// oracle's overdue principal and interest, and an item is overdue only after its date.
func checkItems(w *walk, loan *domain.Loan, day int, when time.Time, want oracle.Position) {
	if loan.Closed() {
		return
	}
	items, err := loan.ItemsAt(when)
	if err != nil {
		w.fail(day, "items: %v", err)
		return
	}
	var principal, charges int64
	oldest := 0
	for _, it := range items {
		if it.Overdue {
			oldest = max(oldest, it.DaysOverdue)
			if !it.PaymentDate.Before(domain.BusinessDate(when)) || it.DaysOverdue < 1 {
				w.fail(day, "item %s is overdue %d days at %s", it.PaymentDate.Format(time.DateOnly), it.DaysOverdue, when)
			}
			principal += it.OutstandingPrincipal()
			charges += it.OutstandingCharges()
		}
	}
	if principal != want.OverduePrincipal || charges != want.OverdueInterest {
		w.fail(day, "the overdue items owe %d principal and %d interest, the oracle %d and %d", principal, charges,
			want.OverduePrincipal, want.OverdueInterest)
	}
	// The stored first unpaid due date gives the loan's days overdue without its book; a
	// written-off loan is out of the active portfolio and has none.
	due, ok, err := loan.FirstUnpaidDue()
	if loan.WrittenOff() {
		if ok || err != nil {
			w.fail(day, "a written-off loan has a first unpaid due date %s (%v)", due.Format(time.DateOnly), err)
		}
		return
	}
	days := 0
	if today := domain.BusinessDate(when); ok && due.Before(today) {
		days = domain.DaysBetween(due, today)
	}
	if err != nil || days != oldest {
		w.fail(day, "first unpaid due %s (%v) makes %d days overdue, the oldest overdue item %d", due.Format(time.DateOnly), err, days, oldest)
	}
}

func domainLoan(t oracle.Terms) *domain.Loan {
	terms := domainTerms(t)
	penalty, _ := domain.PercentFromHundredths(t.PenaltyDaily)
	issued := time.Date(t.IssuedOn.Year(), t.IssuedOn.Month(), t.IssuedOn.Day(), 10, 0, 0, 0, domain.Tashkent)
	return domain.RestoreLoan(domain.LoanState{ID: uuid.New(), Amount: terms.Amount, MonthPeriod: t.Months, Rate: terms.Rate,
		ServiceRate: terms.ServiceRate, PenaltyDaily: penalty, ScheduleType: terms.Type, ContractNumber: "1", IssuedAt: issued})
}

// moment is a time on day d of the loan, in the business day: noon, or its last second.
func moment(t oracle.Terms, d int, late bool) time.Time {
	noon := time.Date(t.IssuedOn.Year(), t.IssuedOn.Month(), t.IssuedOn.Day(), 12, 0, 0, 0, domain.Tashkent).AddDate(0, 0, d)
	if late {
		return noon.Add(12*time.Hour - time.Second)
	}
	return noon
}

// amountOf is a payment's amount on its day.
func amountOf(p payment, pos oracle.Position, sched []oracle.Item, today time.Time) int64 {
	var a int64
	switch p.Kind {
	case due:
		a = pos.OverduePrincipal + pos.OverdueInterest + pos.Penalty + pos.TermInterest
		for _, it := range sched {
			if !it.Date.Before(today) {
				a += it.Principal
				break
			}
		}
	case part:
		a = int64(float64(pos.Payoff()) * p.Share)
	case tiny:
		a = 1
	case payoff:
		a = pos.Payoff()
	case less:
		a = pos.Payoff() - 1
	case over:
		return pos.Payoff() + 1
	}
	return max(1, min(a, pos.Payoff()))
}

func pay(loan *domain.Loan, when time.Time, early bool, amount int64) (domain.Payment, error) {
	p, _, err := payPosting(loan, when, early, amount)
	return p, err
}

// payPosting pays and returns the payment's posting too.
func payPosting(loan *domain.Loan, when time.Time, early bool, amount int64) (domain.Payment, []domain.Entry, error) {
	typ := domain.PaymentTerm
	if early {
		typ = domain.PaymentEarly
	}
	r, err := domain.NewRepayment(uuid.New(), loan, 0, when)
	if err != nil {
		return domain.Payment{}, nil, err
	}
	posting, err := r.Pay(loan, domain.Payment{Type: typ, Amount: amount, DebitID: "D", Network: domain.NetworkUzcard,
		TransactionID: uuid.New(), At: when})
	if err != nil {
		return domain.Payment{}, nil, err
	}
	// The posting moves exactly the amount and balances, interest given back included.
	var debits, credits int64
	for _, e := range posting.Entries {
		debits, credits = debits+e.Debit, credits+e.Credit
	}
	p := *r.Payment()
	if p.Recovery != !loan.WrittenOffAt().IsZero() {
		return p, nil, fmt.Errorf("paying %d: recovery %t on a loan written off at %s", amount, p.Recovery, loan.WrittenOffAt())
	}
	if debits != credits || posting.Entries[0].Debit != amount || p.Principal+p.Interest+p.Penalty != amount {
		return p, nil, fmt.Errorf("paying %d: the posting %+v does not balance or the split %+v does not add up", amount, posting.Entries, p)
	}
	return p, posting.Entries, nil
}

// compare walks the history through the domain and the oracle and returns the first
// difference or broken property.
func compare(h history) walk {
	var w walk
	t := h.Terms
	loan := domainLoan(t)
	o := oracle.New(t)
	drules, orules := booksRules(t)
	if err := o.KeepBooks(orules); err != nil {
		w.fail(0, "the oracle keeps no books: %v", err)
		return w
	}
	w.books = newBookLedger(t.Amount)
	issued := domain.BusinessDate(loan.IssuedAt())
	got, err := loan.Schedule()
	if err != nil {
		w.fail(0, "the domain refuses the schedule: %v", err)
		return w
	}
	w.compareItems(0, "the schedule at issue", got, oracle.Schedule(t))
	if w.err != nil {
		return w
	}
	limit := rat(t.Amount / 2)
	windowPenalty := new(big.Rat) // the penalty of the 365 days to today
	// scheduled[date] is an item's interest and service when its period began.
	scheduled := map[time.Time]int64{}
	payments := h.Payments
	for day := 0; day <= h.Days && w.err == nil; day++ {
		today := t.IssuedOn.AddDate(0, 0, day)
		o.Advance(today)
		if day > 0 { // the close of yesterday, after its last payment
			w.closeBooks(day, loan, o, issued, issued.AddDate(0, 0, day-1), drules)
		}
		when := moment(t, day, false)
		for _, it := range o.Schedule() {
			if start := it.Date.AddDate(0, 0, -it.PeriodDays); start.Equal(today) || day == 0 && !start.After(today) {
				scheduled[it.Date] = it.Interest + it.Service
			}
		}
		for len(payments) > 0 && payments[0].Day == day && w.err == nil {
			p := payments[0]
			payments = payments[1:]
			if o.Closed() {
				continue
			}
			when = moment(t, day, p.Late) // the day's position is then read at the same moment
			w.step(loan, o, p, day, when)
		}
		if w.err != nil {
			break
		}
		loan = domain.RestoreLoan(loan.State()) // as the repository stores and reads it back
		pos, err := loan.PositionAt(when)
		if err != nil {
			w.fail(day, "position: %v", err)
			break
		}
		comparePosition(&w, day, "position", pos, o.Position())
		checkItems(&w, loan, day, when, o.Position())
		w.nonNegative(day, pos)
		if loan.Closed() != o.Closed() {
			w.fail(day, "the domain's loan closed=%t, the oracle's %t", loan.Closed(), o.Closed())
		}
		sched, err := loan.Schedule()
		if err != nil {
			w.fail(day, "schedule: %v", err)
			break
		}
		w.compareItems(day, "the schedule", sched, o.Schedule())
		for k, it := range sched {
			if it.Principal < 0 || it.Interest < 0 || it.Service < 0 || it.Residue < 0 {
				w.fail(day, "schedule item %d has a negative part: %+v", k+1, it)
			}
		}
		for _, it := range sched {
			if was, ok := scheduled[it.PaymentDate]; ok && it.Interest+it.Service > was {
				w.fail(day, "item %s's interest and service %d exceed the %d scheduled when its period began",
					it.PaymentDate.Format(time.DateOnly), it.Interest+it.Service, was)
			}
		}
		// The cap, over every 365-day window that ends today: the oracle's exact penalty of
		// each day and the schedule's charges spread over each item's period.
		windowPenalty.Add(windowPenalty, o.PenaltyOn(day))
		if day >= 365 {
			windowPenalty.Sub(windowPenalty, o.PenaltyOn(day-365))
		}
		if day >= 364 || day == h.Days {
			used := o.WindowCharges(t.IssuedOn.AddDate(0, 0, day-364), today)
			used.Add(used, windowPenalty)
			if used.Cmp(limit) > 0 {
				w.fail(day, "the 365 days to this one accrue %s, over the cap %s", used.FloatString(3), limit.FloatString(0))
			}
		}
	}
	return w
}

func rat(n int64) *big.Rat { return new(big.Rat).SetInt64(n) }

// step makes one payment on both sides, compares its split, and checks the properties: one
// tiyin more never costs more than one tiyin, an EARLY payment makes nothing due today, grows
// no item, and does not lengthen the loan.
func (w *walk) step(loan *domain.Loan, o *oracle.Loan, p payment, day int, when time.Time) {
	if p.Kind > kinds {
		w.act(loan, o, p, day, when)
		return
	}
	pos := o.Position()
	before := o.Schedule()
	amount := amountOf(p, pos, before, o.Today())
	if p.Kind == over {
		_, err := pay(loan, when, p.Early, amount)
		if !errors.Is(err, domain.ErrRepaymentAmount) {
			w.fail(day, "paying one tiyin over the payoff %d: %v, want ErrRepaymentAmount", pos.Payoff(), err)
		}
		return
	}
	// One tiyin more, on a copy: its payoff after may not be above this one's.
	var more *domain.Position
	if amount < pos.Payoff() {
		twin := domain.RestoreLoan(loan.State())
		if _, err := pay(twin, when, p.Early, amount+1); err == nil {
			q, _ := twin.PositionAt(when)
			more = &q
		}
	}
	got, entries, err := payPosting(loan, when, p.Early, amount)
	if err != nil {
		w.fail(day, "paying %d (early %t) of payoff %d: %v", amount, p.Early, pos.Payoff(), err)
		return
	}
	w.books.post(entries)
	w.books.paidCharges += got.Interest
	w.books.paidPenalty += got.Penalty
	want, err := o.Pay(p.Early, amount)
	if err != nil {
		w.fail(day, "the oracle refuses %d: %v", amount, err)
		return
	}
	w.payments++
	w.amounts += 3
	if *trace {
		fmt.Printf("day %d: pay %d (early %t) of %+v: domain %d/%d/%d, oracle %+v\n", day, amount, p.Early, pos,
			got.Principal, got.Interest, got.Penalty, want)
	}
	if got.Principal != want.Principal || got.Interest != want.Interest || got.Penalty != want.Penalty {
		w.fail(day, "paying %d (early %t): the domain applies principal %d interest %d penalty %d, the oracle %+v",
			amount, p.Early, got.Principal, got.Interest, got.Penalty, want)
		return
	}
	after := o.Position()
	if more != nil && more.Payoff() > after.Payoff() {
		w.fail(day, "paying %d leaves %d, paying one tiyin more leaves %d", amount, after.Payoff(), more.Payoff())
	}
	if !p.Early || o.Closed() {
		return
	}
	now := o.Schedule()
	if len(now) > 0 && len(before) > 0 && now[len(now)-1].Date.After(before[len(before)-1].Date) {
		w.fail(day, "an EARLY payment of %d moved the loan's end from %s to %s", amount,
			before[len(before)-1].Date.Format(time.DateOnly), now[len(now)-1].Date.Format(time.DateOnly))
	}
	was := map[time.Time]oracle.Item{}
	for _, it := range before {
		was[it.Date] = it
	}
	for _, it := range now {
		b, ok := was[it.Date]
		if !ok {
			w.fail(day, "an EARLY payment of %d added an item on %s", amount, it.Date.Format(time.DateOnly))
			continue
		}
		grew := it.Principal + it.Interest + it.Service - b.Principal - b.Interest - b.Service
		if it.Date.After(o.Today()) && grew > 0 && !it.Date.Equal(currentDate(now, o.Today())) {
			w.fail(day, "an EARLY payment of %d grew the item of %s by %d", amount, it.Date.Format(time.DateOnly), grew)
		}
	}
	if d := after.OverduePrincipal + after.OverdueInterest; d > max(0, pos.OverduePrincipal+pos.OverdueInterest) {
		w.fail(day, "an EARLY payment of %d made %d overdue", amount, d)
	}
}

// act takes an operators' action on both sides and compares what it did.
func (w *walk) act(loan *domain.Loan, o *oracle.Loan, p payment, day int, when time.Time) {
	pos := o.Position()
	w.amounts++
	w.actions++
	if p.Kind == extend || p.Kind == holiday {
		months, rest := 1+int(p.Share*6), 0
		if p.Kind == holiday {
			months = 1 + int(p.Share*3)
			rest = months
		}
		want := o.Restructure(months, rest)
		err := loan.Restructure(when, months, rest)
		if (err == nil) != want {
			w.fail(day, "%s by %d months: the domain says %v, the oracle that it fits: %t", kindNames[p.Kind], months, err, want)
		}
		if err == nil {
			w.restructured++
		}
		if err != nil && !errors.Is(err, domain.ErrRestructure) && !errors.Is(err, domain.ErrLoanWrittenOff) && !errors.Is(err, domain.ErrLoanNotIssued) {
			w.fail(day, "%s by %d months: %v", kindNames[p.Kind], months, err)
		}
		return
	}
	if p.Kind == writeOff {
		want := o.WriteOff()
		out, err := (&domain.Proposal{Kind: domain.ActionWriteOff, ObjectID: loan.ID()}).ApplyTo(loan, uuid.New(), uuid.New(), when)
		got := out.Amount
		for _, p := range out.Postings {
			w.books.post(p.Entries)
		}
		if err != nil || got != want || loan.Status() != domain.LoanWrittenOff {
			w.fail(day, "writing off: the domain moves %d (%v, %s), the oracle %d", got, err, loan.Status(), want)
		}
		return
	}
	owed, action, twin := pos.Penalty, domain.ActionWaivePenalty, o.WaivePenalty
	if p.Kind == waiveInterest {
		owed, action, twin = pos.OverdueInterest, domain.ActionWaiveInterest, o.WaiveInterest
	}
	amount := int64(float64(owed) * p.Share)
	// As the operators' approval applies it, with the books' reversal of what it forgives.
	out, err := (&domain.Proposal{Kind: action, ObjectID: loan.ID(), Action: domain.LoanActionTerms{Amount: amount}}).
		ApplyTo(loan, uuid.New(), uuid.New(), when)
	got := out.Amount
	for _, p := range out.Postings {
		w.books.post(p.Entries)
	}
	want, oerr := twin(amount)
	if (err == nil) != (oerr == nil) || got != want {
		w.fail(day, "%s %d of %d: the domain forgives %d (%v), the oracle %d (%v)", kindNames[p.Kind], amount, owed, got, err, want, oerr)
	}
	if err != nil && !errors.Is(err, domain.ErrActionAmount) {
		w.fail(day, "%s %d of %d: %v, want ErrActionAmount", kindNames[p.Kind], amount, owed, err)
	}
}

// currentDate is the due date of the earliest item not yet overdue on today.
func currentDate(items []oracle.Item, today time.Time) time.Time {
	for _, it := range items {
		if !it.Date.Before(today) {
			return it.Date
		}
	}
	return time.Time{}
}

// shrink drops payments one at a time, and shortens the history, while the loan still fails.
func shrink(h history) history {
	fails := func(c history) bool { return compare(c).err != nil }
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(h.Payments); i++ {
			c := h
			c.Payments = append(append([]payment{}, h.Payments[:i]...), h.Payments[i+1:]...)
			if fails(c) {
				h, changed = c, true
				i--
			}
		}
	}
	for lo, hi := 0, h.Days; lo < hi; {
		mid := (lo + hi) / 2
		c := h
		c.Days = mid
		if fails(c) {
			hi, h = mid, c
		} else {
			lo = mid + 1
		}
	}
	return h
}

// TestDomainAgreesWithTheOracle is the comparison's short run; make oracle runs it long.
func TestDomainAgreesWithTheOracle(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*seed, 2026))
	histories := make([]history, *loans)
	for n := range histories {
		histories[n] = randomHistory(rng, *years)
	}
	// The loans are independent: walk them on every CPU, report the first that differs.
	if *only >= 0 && *only < len(histories) {
		histories = histories[*only : *only+1]
	} else if *from > 0 && *from < len(histories) {
		histories = histories[*from:]
	}
	walks := make([]walk, len(histories))
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for n := range next {
				walks[n] = compare(histories[n])
			}
		})
	}
	for n := range histories {
		next <- n
	}
	close(next)
	wg.Wait()
	var total walk
	if *all {
		differ := 0
		for n, w := range walks {
			if w.err != nil {
				differ++
				t.Errorf("seed %d, loan %d (%s): %v", *seed, n, histories[n].Terms, w.err)
			}
		}
		fmt.Printf("oracle: %d loans, %d differ\n", len(histories), differ)
		return
	}
	for n, w := range walks {
		total.payments += w.payments
		total.actions += w.actions
		total.restructured += w.restructured
		total.amounts += w.amounts
		total.closes += w.closes
		if w.err != nil && *quick {
			t.Fatalf("seed %d, loan %d (%s): %v\n%s", *seed, n, histories[n].Terms, w.err, histories[n].goCase())
		}
		if w.err != nil {
			small := shrink(histories[n])
			t.Fatalf("seed %d, loan %d (%s): %v\nsmallest history that still differs, as a Go table case:\n%s\n%v",
				*seed, n, histories[n].Terms, w.err, small.goCase(), compare(small).err)
		}
	}
	if total.amounts == 0 {
		t.Fatal("nothing was compared")
	}
	fmt.Printf("oracle: %d loans, %d payments, %d operators' actions (%d restructurings applied), %d closes' books, %d amounts compared, 0 differences\n",
		len(histories), total.payments, total.actions, total.restructured, total.closes, total.amounts)
}
