package domain_test

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/tiyin/tiyin/domain"
)

// The lifecycle simulator (make simulate) walks random loans through random histories, day by
// day, through the domain only, and checks the money rules after every day. A short run is part
// of make test; a failing loan is shrunk to the fewest payments that still fail and printed.
var (
	simSeed  = flag.Uint64("sim.seed", 1, "the simulator's seed")
	simLoans = flag.Int("sim.loans", 120, "how many loans the simulator walks")
	simYears = flag.Int("sim.years", 5, "the longest history of a loan, in years")
)

// simAmount says how a simulated payment's amount is found on its day, so that a history
// still means something when the shrinker drops payments before it.
type simAmount int

const (
	amountDue    simAmount = iota // what is due today (overdue and the current item), or 1
	amountPart                    // a random part of the payoff
	amountTiny                    // 1 tiyin
	amountPayoff                  // the whole payoff
	amountOver                    // one tiyin more than the payoff: refused, changes nothing
	amountKinds
)

func (k simAmount) String() string {
	return [...]string{"due", "part", "tiny", "payoff", "over"}[k]
}

// simPayment is one payment of a history: on the loan's day Day (from issue), of kind Kind.
type simPayment struct {
	Day  int
	Type domain.PaymentType
	Kind simAmount
	Part float64 // for amountPart: the share of the payoff
}

func (p simPayment) String() string {
	if p.Kind == amountPart {
		return fmt.Sprintf("{day %d %s part %.4f}", p.Day, p.Type, p.Part)
	}
	return fmt.Sprintf("{day %d %s %s}", p.Day, p.Type, p.Kind)
}

// simLoan is a loan's terms and its history.
type simLoan struct {
	State    domain.LoanState
	Days     int
	Payments []simPayment
}

func (l simLoan) String() string {
	s := l.State
	var b strings.Builder
	fmt.Fprintf(&b, "amount %d, %d months at %s %% (service %s %%, penalty %s %% a day), %s, issued %s, %d days:",
		s.Amount, s.MonthPeriod, s.Rate, s.ServiceRate, s.PenaltyDaily, s.ScheduleType, s.IssuedAt.Format(time.DateOnly), l.Days)
	for _, p := range l.Payments {
		b.WriteString(" " + p.String())
	}
	return b.String()
}

// randomLoan draws terms over the whole range the interface allows (amounts 1 tiyin to 9e15,
// 1–36 months, 0–99.99 %, both schedule types, issue dates over leap years and month ends)
// that verify would accept, and a history of up to years.
func randomLoan(rng *rand.Rand, years int) simLoan {
	for {
		issued := time.Date(2024+rng.IntN(8), time.Month(1+rng.IntN(12)), 1, 9+rng.IntN(10), 0, 0, 0, domain.Tashkent)
		switch rng.IntN(4) { // month ends and leap days are where dates go wrong
		case 0:
			issued = issued.AddDate(0, 1, -1)
		case 1:
			issued = issued.AddDate(0, 0, 27+rng.IntN(2))
		default:
			issued = issued.AddDate(0, 0, rng.IntN(28))
		}
		amount := int64(math.Pow(10, rng.Float64()*15.95)) // 1 to 9e15, as many small as large
		amount = max(1, min(amount, 9_000_000_000_000_000))
		typ := domain.ScheduleAnnuity
		if rng.IntN(3) == 0 {
			typ = domain.ScheduleDifferentiated
		}
		rate, _ := domain.PercentFromHundredths(rng.Int64N(10000))
		service, _ := domain.PercentFromHundredths(rng.Int64N(300))
		penalty, _ := domain.PercentFromHundredths([]int64{5, 5, 1, 10, 50}[rng.IntN(5)])
		s := domain.LoanState{ID: uuid.New(), Amount: domain.Amount(amount), MonthPeriod: 1 + rng.IntN(36), Rate: rate,
			ServiceRate: service, PenaltyDaily: penalty, ScheduleType: typ, ContractNumber: "1", IssuedAt: issued}
		loan := domain.RestoreLoan(s)
		items, err := loan.Schedule()
		if err != nil || !domain.ScheduledChargesWithinCap(loan.Terms(), items) {
			continue // verify refuses it
		}
		l := simLoan{State: s, Days: 30 + rng.IntN(365*years)}
		for day := 0; day <= l.Days; day++ {
			onDue := false
			for _, it := range items {
				onDue = onDue || domain.BusinessDate(issued.AddDate(0, 0, day)).Equal(it.PaymentDate)
			}
			switch {
			case rng.IntN(100) < 2: // a long silence
				day += 60 + rng.IntN(400)
			case onDue && rng.IntN(10) < 7: // the instalment on its date
				l.Payments = append(l.Payments, simPayment{Day: day, Type: randomType(rng), Kind: amountDue})
			case rng.IntN(100) < 3:
				l.Payments = append(l.Payments, simPayment{Day: day, Type: randomType(rng), Kind: simAmount(rng.IntN(int(amountKinds))),
					Part: rng.Float64()})
			}
		}
		return l
	}
}

func randomType(rng *rand.Rand) domain.PaymentType {
	if rng.IntN(2) == 0 {
		return domain.PaymentEarly
	}
	return domain.PaymentTerm
}

// simulate walks the loan through its history day by day and returns the first broken rule.
func simulate(l simLoan) (loanDays int, err error) {
	loan := domain.RestoreLoan(l.State)
	cap := int64(l.State.Amount) / domain.CapShare
	var repaid, paidCharges, paidPenalty int64
	// penalties[d] is the penalty accrued from issue up to day d: paid, or owed.
	penalties := make([]int64, 0, l.Days+1)
	payments := l.Payments
	for day := 0; day <= l.Days; day++ {
		when := l.State.IssuedAt.AddDate(0, 0, day).Add(time.Hour)
		for len(payments) > 0 && payments[0].Day == day {
			p := payments[0]
			payments = payments[1:]
			if loan.Closed() {
				continue
			}
			if err := pay(loan, p, when, &repaid, &paidCharges, &paidPenalty); err != nil {
				return day, fmt.Errorf("day %d, payment %s: %w", day, p, err)
			}
		}
		pos, err := loan.PositionAt(when)
		if err != nil {
			return day, err
		}
		loanDays++
		for name, v := range map[string]int64{"notDuePrincipal": pos.NotDuePrincipal, "overduePrincipal": pos.OverduePrincipal,
			"overdueInterest": pos.OverdueInterest, "termInterest": pos.TermInterest, "penalty": pos.Penalty} {
			if v < 0 {
				return day, fmt.Errorf("day %d: %s is %d", day, name, v)
			}
		}
		if owed := pos.NotDuePrincipal + pos.OverduePrincipal; owed+repaid != int64(l.State.Amount) && !loan.Closed() {
			return day, fmt.Errorf("day %d: principal owed %d + repaid %d ≠ %d", day, owed, repaid, l.State.Amount)
		}
		if loan.Closed() && (repaid != int64(l.State.Amount) || pos.Payoff() != 0) {
			return day, fmt.Errorf("day %d: closed with %d of %d repaid, payoff %d", day, repaid, l.State.Amount, pos.Payoff())
		}
		if pos.Payoff() == 0 && !loan.Closed() {
			return day, fmt.Errorf("day %d: nothing is owed, and the loan is open", day)
		}
		if !loan.Closed() {
			r, err := domain.NewRepayment(uuid.New(), loan, 0, when)
			if err != nil {
				return day, err
			}
			q := r.Quote()
			if q.NotDuePrincipal+q.OverduePrincipal+q.TermInterest+q.OverdueInterest+q.Penalty != pos.Payoff() || q != pos {
				return day, fmt.Errorf("day %d: the check's five parts %+v do not sum to the payoff %d", day, q, pos.Payoff())
			}
		}
		restored := domain.RestoreLoan(loan.State())
		if again, err := restored.PositionAt(when); err != nil || again != pos {
			return day, fmt.Errorf("day %d: the stored book gives %+v, not %+v (%w)", day, again, pos, err)
		}
		penalties = append(penalties, paidPenalty+pos.Penalty)
		// The cap holds in the window of the 365 days up to today: the penalty accrued in it,
		// and the schedule's interest and service, day by day.
		items, err := loan.Schedule()
		if err != nil {
			return day, err
		}
		penalty := penalties[day]
		if day >= 365 {
			penalty -= penalties[day-365]
		}
		today := domain.BusinessDate(when)
		charges := windowCharges(items, today.AddDate(0, 0, -365), today)
		if penalty+charges > cap+int64(len(items)) {
			return day, fmt.Errorf("day %d: %d of penalty and %d of interest and service accrued in the 365 days to it, over the cap %d",
				day, penalty, charges, cap)
		}
	}
	return loanDays, nil
}

// windowCharges is the interest and service the items accrue on the days from start up to end:
// an item's charges accrue evenly over its period.
func windowCharges(items []domain.ScheduleItem, start, end time.Time) int64 {
	var sum int64
	for _, it := range items {
		lo, hi := it.PaymentDate.AddDate(0, 0, -it.PeriodDays), it.PaymentDate
		if start.After(lo) {
			lo = start
		}
		if end.Before(hi) {
			hi = end
		}
		if days := domain.DaysBetween(lo, hi); days > 0 && it.PeriodDays > 0 {
			sum += int64(float64(it.Interest+it.Service) * float64(days) / float64(it.PeriodDays))
		}
	}
	return sum
}

// pay makes one payment and checks its allocation: the parts add up, the penalty is paid only
// after everything overdue, an amount over the payoff is refused and changes nothing.
func pay(loan *domain.Loan, p simPayment, when time.Time, repaid, charges, penalty *int64) error {
	pos, err := loan.PositionAt(when)
	if err != nil {
		return err
	}
	var amount int64
	switch p.Kind {
	case amountDue:
		amount = pos.OverduePrincipal + pos.OverdueInterest + pos.Penalty + pos.TermInterest
		if items, err := loan.Schedule(); err == nil {
			for _, it := range items {
				if !it.PaymentDate.Before(domain.BusinessDate(when)) {
					amount += it.Principal
					break
				}
			}
		}
	case amountPart:
		amount = int64(float64(pos.Payoff()) * p.Part)
	case amountTiny:
		amount = 1
	case amountPayoff:
		amount = pos.Payoff()
	case amountOver:
		before := loan.State()
		if _, _, err := tryRepay(loan, when, p.Type, pos.Payoff()+1); !errors.Is(err, domain.ErrRepaymentAmount) {
			return fmt.Errorf("paying one tiyin over the payoff %d: %w, want ErrRepaymentAmount", pos.Payoff(), err)
		}
		if after := loan.State(); !reflect.DeepEqual(after, before) {
			return errors.New("a refused payment changed the loan")
		}
		return nil
	}
	amount = max(1, min(amount, pos.Payoff()))
	paid, posting, err := tryRepay(loan, when, p.Type, amount)
	if err != nil {
		return fmt.Errorf("paying %d of payoff %d: %w", amount, pos.Payoff(), err)
	}
	var credits int64
	for _, e := range posting.Entries {
		credits += e.Credit
	}
	if credits != amount || paid.Principal+paid.Interest+paid.Penalty != amount || paid.Principal < 0 || paid.Interest < 0 || paid.Penalty < 0 {
		return fmt.Errorf("paying %d: the split %+v or the posting's credits %d do not add up", amount, paid, credits)
	}
	after, err := loan.PositionAt(when)
	if err != nil {
		return err
	}
	// (1) Overdue principal and interest first, in proportion: principal takes
	// floor(x × p / (p + i)) of an amount x that does not cover them.
	if overdue := pos.OverduePrincipal + pos.OverdueInterest; amount <= overdue {
		share := new(big.Int).Mul(big.NewInt(amount), big.NewInt(pos.OverduePrincipal))
		share.Quo(share, big.NewInt(overdue))
		if paid.Principal != share.Int64() || paid.Interest != amount-share.Int64() || paid.Penalty != 0 {
			return fmt.Errorf("paying %d of %d overdue (%d principal): %+v, want principal %d first in proportion", amount, overdue,
				pos.OverduePrincipal, paid, share)
		}
	}
	// (4) The penalty only once everything overdue, and the current item, are paid.
	if paid.Penalty > 0 && after.OverduePrincipal+after.OverdueInterest > 0 {
		return fmt.Errorf("paying %d: %d of penalty paid while %d overdue is left", amount, paid.Penalty, after.OverduePrincipal+after.OverdueInterest)
	}
	if paid.Penalty > pos.Penalty || paid.Principal > pos.NotDuePrincipal+pos.OverduePrincipal {
		return fmt.Errorf("paying %d: %+v pays more than was owed (%+v)", amount, paid, pos)
	}
	*repaid += paid.Principal
	*charges += paid.Interest
	*penalty += paid.Penalty
	return nil
}

// shrink drops payments one at a time, and shortens the history, while the loan still fails.
func shrink(l simLoan) simLoan {
	fails := func(c simLoan) bool { _, err := simulate(c); return err != nil }
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(l.Payments); i++ {
			c := l
			c.Payments = append(append([]simPayment{}, l.Payments[:i]...), l.Payments[i+1:]...)
			if fails(c) {
				l, changed = c, true
				i--
			}
		}
	}
	for lo, hi := 0, l.Days; lo < hi; {
		mid := (lo + hi) / 2
		c := l
		c.Days = mid
		if fails(c) {
			hi, l = mid, c
		} else {
			lo = mid + 1
		}
	}
	return l
}

// TestLifecycleSimulator is the simulator's short run; make simulate runs it long.
func TestLifecycleSimulator(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(*simSeed, 2026))
	start := time.Now()
	var loanDays, payments int
	for n := range *simLoans {
		l := randomLoan(rng, *simYears)
		days, err := simulate(l)
		loanDays += days
		payments += len(l.Payments)
		if err != nil {
			small := shrink(l)
			_, err = simulate(small)
			t.Fatalf("seed %d, loan %d: %v\nsmallest failing history: %s", *simSeed, n, err, small)
		}
	}
	t.Logf("seed %d: %d loans, %d payments, %d loan-days simulated in %s", *simSeed, *simLoans, payments, loanDays,
		time.Since(start).Round(time.Millisecond))
}
